# cmake -DINPUTS=... -DTEMPLATE=... -DOUTPUT=... -P module_build_hash.cmake (module_build.cmake):
# writes OUTPUT from TEMPLATE with SHEDLOCK_MODULE_BUILD = "<version> <compiler> <hash>", the hash
# over the flags and every header's name and text. The file is left alone when the identity is
# the same, so nothing that includes it recompiles.
include(${INPUTS})
set(input "${FLAGS}")
foreach(header IN LISTS HEADERS)
  file(RELATIVE_PATH name ${SOURCE_DIR} ${header})
  file(READ ${header} text)
  string(APPEND input "|${name}|${text}")
endforeach()
string(SHA256 hash "${input}")
string(SUBSTRING ${hash} 0 20 hash)
set(SHEDLOCK_MODULE_BUILD "${VERSION} ${COMPILER} ${hash}")
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
