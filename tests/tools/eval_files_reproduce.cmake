# Regenerates the evaluation files with tools/train/corpus.py and compares them with the committed
# ones: a change to the corpus generator must not silently change what the accuracy figures measure.
execute_process(COMMAND ${PYTHON} ${SOURCE}/tools/train/corpus.py --write-eval ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "corpus.py --write-eval failed (${rc})")
endif()
foreach(name test heldout)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${name}.jsonl
                          ${SOURCE}/resources/eval/${name}.jsonl RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "resources/eval/${name}.jsonl differs from what tools/train/corpus.py generates")
  endif()
endforeach()
