# cmake -DWORK_DIR=<folder> -P torchsource-test.cmake
# trainyard_torch_source() (cmake/TrainyardTorchSource.cmake) against stub
# python3 programs that print chosen answers: which LibTorch the worker
# would build against, and why. A case that must stop the configure runs
# in a child cmake (CASE=<name>), since FATAL_ERROR ends this one.

cmake_minimum_required(VERSION 3.22)
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/TrainyardTorchSource.cmake)

if(NOT WORK_DIR)
    message(FATAL_ERROR "WORK_DIR not given")
endif()
set(stubs "${WORK_DIR}/stubs")

# A python3 that answers as a torch with `cuda` (empty: none) and `abi`.
function(make_stub name cuda abi)
    file(WRITE "${stubs}/${name}" "#!/bin/sh\necho 'cuda=${cuda}'\necho 'prefix=/opt/${name}/torch/share/cmake'\necho 'cxx11abi=${abi}'\n")
    file(CHMOD "${stubs}/${name}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endfunction()

if(CASE)
    # The child's cases: each must end in FATAL_ERROR.
    if(CASE STREQUAL "on-import-fails")
        trainyard_torch_source(MODE ON PYTHON "${stubs}/notorch" NVCC /usr/bin/nvcc OLD_ABI_FATAL ON
                               OUT_SOURCE s OUT_PREFIX p OUT_REASON r OUT_CUDA c)
    elseif(CASE STREQUAL "on-old-abi")
        trainyard_torch_source(MODE ON PYTHON "${stubs}/oldabi" NVCC /usr/bin/nvcc OLD_ABI_FATAL ON
                               OUT_SOURCE s OUT_PREFIX p OUT_REASON r OUT_CUDA c)
    elseif(CASE STREQUAL "bad-mode")
        trainyard_torch_source(MODE MAYBE PYTHON "${stubs}/cuda" OUT_SOURCE s OUT_PREFIX p OUT_REASON r OUT_CUDA c)
    endif()
    return()
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${stubs}")
make_stub(cuda 12.8 1)
make_stub(cpu "" 1)
make_stub(oldabi 12.1 0)
# Debian's python3 without python3-torch: the import's traceback, exit 1.
file(WRITE "${stubs}/notorch" "#!/bin/sh\necho 'Traceback (most recent call last):' >&2\necho \"ModuleNotFoundError: No module named 'torch'\" >&2\nexit 1\n")
file(CHMOD "${stubs}/notorch" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
# A LibTorch archive the user points at, and a prefix that holds only Qt.
file(WRITE "${WORK_DIR}/libtorch/share/cmake/Torch/TorchConfig.cmake" "")
file(MAKE_DIRECTORY "${WORK_DIR}/qt/lib/cmake/Qt6")

set(failures 0)
# expect(<case> <source> <reason regex> <cuda> args...)
function(expect name source reason cuda)
    trainyard_torch_source(${ARGN} OUT_SOURCE s OUT_PREFIX p OUT_REASON r OUT_CUDA c)
    set(ok TRUE)
    if(NOT s STREQUAL source OR NOT r MATCHES "${reason}" OR NOT c STREQUAL cuda)
        set(ok FALSE)
    endif()
    if(source STREQUAL "python" AND NOT p MATCHES "^/opt/.*/torch/share/cmake$")
        set(ok FALSE)
    endif()
    if(NOT source STREQUAL "python" AND NOT p STREQUAL "")
        set(ok FALSE)
    endif()
    if(ok)
        message(STATUS "PASS ${name}: ${s} (${r})")
    else()
        message(STATUS "FAIL ${name}: got source \"${s}\", prefix \"${p}\", reason \"${r}\", cuda \"${c}\"; "
                       "expected \"${source}\", \"${reason}\", \"${cuda}\"")
        math(EXPR failures "${failures} + 1")
        set(failures ${failures} PARENT_SCOPE)
    endif()
endfunction()

set(nvcc NVCC /usr/local/cuda/bin/nvcc)
expect(auto-cuda python "^torch\\.utils\\.cmake_prefix_path$" 12.8 MODE AUTO PYTHON ${stubs}/cuda ${nvcc} OLD_ABI_FATAL ON)
expect(auto-cpu system "python3's torch has no CUDA" "" MODE AUTO PYTHON ${stubs}/cpu ${nvcc} OLD_ABI_FATAL ON)
expect(auto-import-fails system "cannot be imported: ModuleNotFoundError: No module named 'torch'$" ""
       MODE AUTO PYTHON ${stubs}/notorch ${nvcc} OLD_ABI_FATAL ON)
expect(auto-no-python system "no python3 found" "" MODE AUTO PYTHON "python3-NOTFOUND" ${nvcc} OLD_ABI_FATAL ON)
expect(auto-no-nvcc system "has CUDA 12.8, but .*CUDA toolkit \\(nvcc\\)" "" MODE AUTO PYTHON ${stubs}/cuda
       OLD_ABI_FATAL ON)
expect(auto-old-abi system "pre-C\\+\\+11 string ABI.*TRAINYARD_WORKER_ONLY=ON" "" MODE AUTO PYTHON ${stubs}/oldabi
       ${nvcc} OLD_ABI_FATAL ON)
expect(auto-old-abi-worker-only python "cmake_prefix_path" 12.1 MODE AUTO PYTHON ${stubs}/oldabi ${nvcc}
       OLD_ABI_FATAL OFF)
expect(default-mode-is-auto python "cmake_prefix_path" 12.8 PYTHON ${stubs}/cuda ${nvcc} OLD_ABI_FATAL ON)
expect(off system "TRAINYARD_TORCH_FROM_PYTHON=OFF" "" MODE OFF PYTHON ${stubs}/cuda ${nvcc} OLD_ABI_FATAL ON)
expect(on-cpu python "TRAINYARD_TORCH_FROM_PYTHON=ON" "" MODE on PYTHON ${stubs}/cpu ${nvcc} OLD_ABI_FATAL ON)
expect(auto-user-prefix user "CMAKE_PREFIX_PATH=.*/libtorch" "" MODE AUTO PYTHON ${stubs}/cuda ${nvcc}
       OLD_ABI_FATAL ON USER_PREFIX "${WORK_DIR}/qt;${WORK_DIR}/libtorch")
expect(auto-qt-prefix python "cmake_prefix_path" 12.8 MODE AUTO PYTHON ${stubs}/cuda ${nvcc} OLD_ABI_FATAL ON
       USER_PREFIX "${WORK_DIR}/qt")
expect(auto-user-torch-dir user "Torch_DIR=/opt/mine" "" MODE AUTO PYTHON ${stubs}/cuda ${nvcc} OLD_ABI_FATAL ON
       USER_TORCH_DIR /opt/mine)
expect(off-user-torch-dir user "Torch_DIR=/opt/mine" "" MODE OFF PYTHON ${stubs}/cuda OLD_ABI_FATAL ON
       USER_TORCH_DIR /opt/mine)

set(stop_on-import-fails "TRAINYARD_TORCH_FROM_PYTHON=ON, but .*notorch: .*No module named 'torch'")
set(stop_on-old-abi "TRAINYARD_TORCH_FROM_PYTHON=ON: .*pre-C\\+\\+11 string ABI")
set(stop_bad-mode "expected AUTO, ON or OFF, got \"MAYBE\"")
foreach(case IN ITEMS on-import-fails on-old-abi bad-mode)
    execute_process(COMMAND ${CMAKE_COMMAND} -DWORK_DIR=${WORK_DIR} -DCASE=${case} -P ${CMAKE_CURRENT_LIST_FILE}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(REGEX REPLACE "[ \n]+" " " err "${err}")
    if(NOT rc EQUAL 0 AND err MATCHES "${stop_${case}}")
        message(STATUS "PASS ${case}: stopped:${err}")
    else()
        message(STATUS "FAIL ${case}: exit ${rc}, expected a stop saying \"${stop_${case}}\":${err}")
        math(EXPR failures "${failures} + 1")
    endif()
endforeach()

if(failures GREATER 0)
    message(FATAL_ERROR "${failures} case(s) failed")
endif()
