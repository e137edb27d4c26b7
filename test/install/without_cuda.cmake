# A build without the CUDA toolkit (GSHMEM_ENABLE_CUDA=OFF), as on a fresh machine that has none: the
# host library, gshmrun and the device perftests (programs that say they need a GPU) build, and
# NVSHMEM's install check run against it says plainly that the test needs a GPU.
#   cmake -DSOURCE_DIR=... -DWORK=... -DGENERATOR=... -P without_cuda.cmake
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
                        -DGSHMEM_ENABLE_CUDA=OFF -DGSHMEM_BUILD_TESTS=OFF -DGSHMEM_BUILD_EXAMPLES=OFF
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure without CUDA failed:\n${out}")
endif()
if(NOT out MATCHES "GPU backend OFF")
  message(FATAL_ERROR "configure with GSHMEM_ENABLE_CUDA=OFF did not turn the GPU backend off:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK} --target gshmem_host gshmrun perftest_device_shmem_put_bw
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "build without CUDA failed:\n${out}")
endif()
execute_process(COMMAND ${WORK}/bin/gshmrun -n 2 ${WORK}/perftest/device/pt-to-pt/shmem_put_bw --min_size 8
                        --max_size 1M --use_smem 0
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(rc EQUAL 0 OR NOT out MATCHES "shmem_put_bw: this test needs a GPU on every PE \\(this gshmem was built without CUDA")
  message(FATAL_ERROR "the install check without CUDA did not fail with the needs-a-GPU message (status ${rc})")
endif()
message("without CUDA: built, and the install check says that it needs a GPU")
