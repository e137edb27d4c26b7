# Fails when docs/settings.md differs from what gshmem-info --markdown prints.
execute_process(COMMAND ${INFO} --markdown OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gshmem-info --markdown failed (${rc})")
endif()
file(READ ${DOC} committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR "docs/settings.md is out of date with src/util/config.def: run\n"
                      "  build/bin/gshmem-info --markdown > docs/settings.md")
endif()
message("docs/settings.md matches the settings table")
