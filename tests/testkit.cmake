# Helpers of the tests that need no GoogleTest (CCU program writers, the HCCL
# VM database builder), compiled once into collcheck_testkit and linked by
# the tests, the benchmarks and the HCCL VM fuzz target alike (each used to
# compile its own copy, which CI without ccache paid for two or three times).
add_library(collcheck_testkit STATIC
  ${CMAKE_CURRENT_LIST_DIR}/ccu_asm.cc ${CMAKE_CURRENT_LIST_DIR}/ccu_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/ccu_allreduce.cc
  ${CMAKE_CURRENT_LIST_DIR}/hcclvm_fixture.cc ${CMAKE_CURRENT_LIST_DIR}/hcclvm_fixture_trace.cc
  ${CMAKE_CURRENT_LIST_DIR}/hcclvm_fixture_fuzz.cc)
target_link_libraries(collcheck_testkit PUBLIC collcheck_core)
target_include_directories(collcheck_testkit PUBLIC ${CMAKE_CURRENT_LIST_DIR})
