# cmake -P script: the hand-written shedlock(1) covers the CLI as it is. Walks `shedlock --help`
# and every subcommand's help, recursively, and fails when the page has no .SS section for a
# subcommand (".SS locks release") or does not mention one of its long options.
#   -DSHEDLOCK=<the binary> -DMAN_PAGE=<cli/man/shedlock.1.in>
file(READ "${MAN_PAGE}" page)
string(REPLACE "\\-" "-" page "${page}")  # roff writes a literal hyphen as \-
set(missing "")

# Lines of CLI11's help between "<heading>:" and the next blank line.
function(help_section help heading out)
  string(REGEX MATCH "\n${heading}:\n([^\n]+\n)+" section "${help}")
  string(REPLACE "\n" ";" lines "${section}")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

function(check_command path)
  string(REPLACE " " ";" args "${path}")
  execute_process(COMMAND ${SHEDLOCK} ${args} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "shedlock ${path} --help exited with ${rc}")
  endif()
  if(path AND NOT page MATCHES "\n\\.SS ${path}[ \n]")
    list(APPEND missing "section .SS ${path}")
  endif()
  help_section("${help}" Options options)
  foreach(line IN LISTS options)
    # An option line starts "  -p,--provider" or "  --json"; descriptions and footers do not.
    if(line MATCHES "^  (-[a-zA-Z],)?(--[a-z0-9-]+)")
      set(option ${CMAKE_MATCH_2})
      if(NOT page MATCHES "${option}([^A-Za-z0-9-]|$)")  # the whole name: --at-most is not --at
        list(APPEND missing "option ${option} of shedlock ${path}")
      endif()
    endif()
  endforeach()
  help_section("${help}" Subcommands subcommands)
  foreach(line IN LISTS subcommands)
    if(line MATCHES "^  ([a-z]+) ")
      string(STRIP "${path} ${CMAKE_MATCH_1}" sub)
      check_command("${sub}")
    endif()
  endforeach()
  set(missing "${missing}" PARENT_SCOPE)
endfunction()

check_command("")
if(missing)
  list(JOIN missing "\n  " missing)
  message(FATAL_ERROR "${MAN_PAGE} lacks:\n  ${missing}")
endif()
message(STATUS "${MAN_PAGE} covers every subcommand and option of the shedlock CLI")
