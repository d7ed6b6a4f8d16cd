# Checks that every code block docs/API.md quotes from an example is that example's code.
#
#   cmake -DDOC=docs/API.md -DEXAMPLES=examples -P examples/check_docs.cmake
#
# In the docs, a quoted block is announced by a comment line naming the file and the snippet:
#
#   <!-- from examples/sum.cu: sum-default -->
#   ```cpp
#   ...
#   ```
#
# and in the example the snippet lies between "// docs:begin sum-default" and
# "// docs:end sum-default" lines; it is compared with the block after removing the begin
# marker's indentation from each line. Python examples (examples/python/NAME.py, quoted in a
# ```python block) mark theirs with "# docs:begin" and "# docs:end".

cmake_minimum_required(VERSION 3.25)

if(NOT DOC OR NOT EXAMPLES)
  message(FATAL_ERROR "usage: cmake -DDOC=<API.md> -DEXAMPLES=<examples dir> -P check_docs.cmake")
endif()

file(READ "${DOC}" doc)
set(rest "${doc}")
set(checked 0)
set(bad 0)
set(intro "<!-- from examples/")

while(TRUE)
  string(FIND "${rest}" "${intro}" at)
  if(at EQUAL -1)
    break()
  endif()
  string(LENGTH "${intro}" intro_length)
  math(EXPR at "${at} + ${intro_length}")
  string(SUBSTRING "${rest}" ${at} -1 rest)
  string(FIND "${rest}" " -->\n```" close)
  if(close EQUAL -1)
    message(SEND_ERROR "${DOC}: a '${intro}' comment not followed by ' -->' and a ```cpp or ```python block")
    math(EXPR bad "${bad} + 1")
    break()
  endif()
  string(SUBSTRING "${rest}" 0 ${close} header)  # "sum.cu: sum-default"
  math(EXPR close "${close} + 8")                # past " -->\n```"
  string(SUBSTRING "${rest}" ${close} -1 rest)
  string(FIND "${rest}" "\n" language_end)       # the block's language, then its first line
  math(EXPR language_end "${language_end} + 1")
  string(SUBSTRING "${rest}" ${language_end} -1 rest)
  string(FIND "${rest}" "\n```" block_end)
  if(block_end EQUAL -1)
    message(SEND_ERROR "${DOC}: the block quoting '${header}' is not closed")
    math(EXPR bad "${bad} + 1")
    break()
  endif()
  string(SUBSTRING "${rest}" 0 ${block_end} block)
  string(SUBSTRING "${rest}" ${block_end} -1 rest)

  if(NOT header MATCHES "^([A-Za-z0-9_/]+\\.(cu|py)): ([A-Za-z0-9_-]+)$")
    message(SEND_ERROR "${DOC}: cannot read '${header}' as '<file>.cu: <snippet>' or '<file>.py: <snippet>'")
    math(EXPR bad "${bad} + 1")
    continue()
  endif()
  set(file "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_3}")
  set(comment "//")
  if(CMAKE_MATCH_2 STREQUAL "py")
    set(comment "#")
  endif()
  if(NOT EXISTS "${EXAMPLES}/${file}")
    message(SEND_ERROR "${DOC}: examples/${file} does not exist (quoted for '${name}')")
    math(EXPR bad "${bad} + 1")
    continue()
  endif()
  file(READ "${EXAMPLES}/${file}" source)

  set(begin_marker "${comment} docs:begin ${name}\n")
  set(end_marker "${comment} docs:end ${name}\n")
  string(FIND "${source}" "${begin_marker}" begin)
  string(FIND "${source}" "${end_marker}" end)
  if(begin EQUAL -1 OR end EQUAL -1 OR end LESS begin)
    message(SEND_ERROR "examples/${file}: no '${comment} docs:begin ${name}' ... '${comment} docs:end ${name}' pair")
    math(EXPR bad "${bad} + 1")
    continue()
  endif()
  # The begin marker's indentation: the spaces between the line start and the marker.
  string(SUBSTRING "${source}" 0 ${begin} before)
  string(FIND "${before}" "\n" line_start REVERSE)
  math(EXPR line_start "${line_start} + 1")
  math(EXPR indent_length "${begin} - ${line_start}")
  string(SUBSTRING "${source}" ${line_start} ${indent_length} indent)
  # The snippet: the lines after the begin marker, up to the end marker's line.
  string(LENGTH "${begin_marker}" begin_length)
  math(EXPR first "${begin} + ${begin_length}")
  string(SUBSTRING "${source}" 0 ${end} upto_end)
  string(FIND "${upto_end}" "\n" last_newline REVERSE)
  math(EXPR length "${last_newline} - ${first}")
  if(length LESS 0)
    set(length 0)
  endif()
  string(SUBSTRING "${source}" ${first} ${length} snippet)
  if(NOT indent STREQUAL "")
    string(REPLACE "\n${indent}" "\n" snippet "\n${snippet}")
    string(SUBSTRING "${snippet}" 1 -1 snippet)
  endif()

  if(snippet STREQUAL block)
    math(EXPR checked "${checked} + 1")
  else()
    message(NOTICE "--- examples/${file} '${name}':\n${snippet}\n--- docs/API.md:\n${block}\n---")
    message(SEND_ERROR "docs/API.md quotes examples/${file} '${name}' differently (both shown above)")
    math(EXPR bad "${bad} + 1")
  endif()
endwhile()

if(checked EQUAL 0 AND bad EQUAL 0)
  message(FATAL_ERROR "${DOC}: no quoted examples found")
endif()
if(bad GREATER 0)
  message(FATAL_ERROR "${bad} quoted example(s) differ from examples/; ${checked} match")
endif()
message(STATUS "${checked} code blocks of ${DOC} match examples/")
