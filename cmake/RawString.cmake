# ember_raw_string(<out-var> <text> <delimiter> <what>): <text> as a C++ raw string literal,
# R"<delimiter>(<text>)<delimiter>", byte for byte. Fails the build when <text> contains the
# closing sequence (<what> names it in the message). Shared by the scripts that compile text
# files into ember (EmbedMigrations.cmake, EmbedText.cmake), so that binaries need no files at
# run time.
function(ember_raw_string out text delimiter what)
  string(FIND "${text}" ")${delimiter}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${what} contains ')${delimiter}\"', the embedding delimiter")
  endif()
  set(${out} "R\"${delimiter}(${text})${delimiter}\"" PARENT_SCOPE)
endfunction()
