# The exporter is in the core; its file work (relay/out/export_files.c) is in the
# relay library.
target_link_libraries(test_export PRIVATE cr_relay)
