# Embeds one text file into a C++ source file, byte for byte, as a function that returns it:
# text that is code for another compiler (the CUDA prelude, codegen/prelude.cuh) is kept in a
# file of its own, as the SQL migrations are (EmbedMigrations.cmake), and ember binaries still
# need no files at run time. Run as a script:
#   cmake -DINPUT=<file> -DOUTPUT=<file.cpp> -DHEADER=<include path of the declaration>
#         -DNAMESPACE=<namespace> -DFUNCTION=<name> -P EmbedText.cmake
# The output defines `std::string_view <NAMESPACE>::<FUNCTION>()`, declared in HEADER. The build
# fails on a file that contains the raw-string delimiter.
if(NOT INPUT OR NOT OUTPUT OR NOT HEADER OR NOT NAMESPACE OR NOT FUNCTION)
  message(FATAL_ERROR
          "EmbedText.cmake needs -DINPUT, -DOUTPUT, -DHEADER, -DNAMESPACE and -DFUNCTION")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/RawString.cmake)

get_filename_component(name "${INPUT}" NAME)
file(READ "${INPUT}" text)
ember_raw_string(literal "${text}" "ember_text" "${name}")

set(source "// Generated from ${name} by cmake/EmbedText.cmake. Do not edit.
#include \"${HEADER}\"

namespace ${NAMESPACE} {

std::string_view ${FUNCTION}() {
  return ${literal};
}

}  // namespace ${NAMESPACE}
")
file(WRITE "${OUTPUT}.tmp" "${source}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
