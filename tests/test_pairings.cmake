# Allocation-failure test: route the library's malloc/calloc/realloc through
# wrappers in test_pairings.c that can fail the N-th call.
target_link_options(${name} PRIVATE "LINKER:--wrap=malloc,--wrap=calloc,--wrap=realloc")
