# The pusher lives in the relay library; the receiver in the test uses
# libevent's evhttp server (and OpenSSL bufferevents for https, if present).
target_link_libraries(test_push PRIVATE cr_relay PkgConfig::LIBEVENT)
pkg_check_modules(PUSH_TEST_TLS IMPORTED_TARGET libevent_openssl openssl)
if(PUSH_TEST_TLS_FOUND)
  target_link_libraries(test_push PRIVATE PkgConfig::PUSH_TEST_TLS)
  target_compile_definitions(test_push PRIVATE CR_TEST_TLS=1)
endif()
