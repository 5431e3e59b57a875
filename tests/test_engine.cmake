# The engine modules live in the relay library; fake_uci (tests/tools) is
# the engine they drive.
target_link_libraries(test_engine PRIVATE cr_relay PkgConfig::LIBEVENT)
target_compile_definitions(test_engine PRIVATE CR_FAKE_UCI="$<TARGET_FILE:fake_uci>")
add_dependencies(test_engine fake_uci)
