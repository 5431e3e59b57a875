# The link tests drive the link on a libevent loop.
target_link_libraries(${name} PRIVATE PkgConfig::LIBEVENT)
