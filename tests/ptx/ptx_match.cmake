# ptx_match.cmake: ptx_match(TEXT PATTERN VAR) sets VAR to TRUE when TEXT
# holds PATTERN: a plain substring, or, written "re:REGEX", a CMake regular
# expression (for what a substring cannot pin, e.g. a barrier's arrival
# count, held in a register of any number right before its init; no ';'
# in a pattern: it would split the list the patterns come in)
function(ptx_match text pattern var)
  if(pattern MATCHES "^re:(.*)$")
    if(text MATCHES "${CMAKE_MATCH_1}")
      set(${var} TRUE PARENT_SCOPE)
    else()
      set(${var} FALSE PARENT_SCOPE)
    endif()
  else()
    string(FIND "${text}" "${pattern}" pos)
    if(pos EQUAL -1)
      set(${var} FALSE PARENT_SCOPE)
    else()
      set(${var} TRUE PARENT_SCOPE)
    endif()
  endif()
endfunction()
