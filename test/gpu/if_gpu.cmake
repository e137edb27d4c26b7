# Runs CMD (arguments separated by ^^) when PROBE says a GPU is usable; otherwise prints the skip
# message that ctest's SKIP_REGULAR_EXPRESSION recognises.
execute_process(COMMAND ${PROBE} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message("no usable GPU: skipped")
  return()
endif()
string(REPLACE "^^" ";" cmd "${CMD}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "failed with exit status ${rc}: ${cmd}")
endif()
