# Which LibTorch trainyard-worker builds against: the one inside python3's
# PyTorch when that has CUDA (pip or conda), else the system's (Debian's CPU
# libtorch-dev). A GPU workstation then gets a worker that trains on its
# GPUs from the plain `make run`, without a second build (README, "Training
# on a GPU").
#
# trainyard_torch_source() only decides (no find_package), so that
# tests/cmake/torchsource-test.cmake runs it in script mode (cmake -P)
# against stub python3 programs; trainyard_find_torch() is what the
# top-level CMakeLists.txt calls.

# trainyard_torch_source(
#     MODE AUTO|ON|OFF        TRAINYARD_TORCH_FROM_PYTHON
#     PYTHON <path>           python3; empty: none found
#     NVCC <path>             the CUDA compiler found; empty: none
#     OLD_ABI_FATAL <bool>    an old-C++-ABI LibTorch cannot link here (the Qt part is built too)
#     USER_PREFIX <list>      the user's CMAKE_PREFIX_PATH
#     USER_TORCH_DIR <path>   a Torch_DIR the user gave (not one found here before)
#     OUT_SOURCE <var>        "python", "system" or "user"
#     OUT_PREFIX <var>        python's torch.utils.cmake_prefix_path when "python"
#     OUT_REASON <var>        why, for the configure message
#     OUT_CUDA <var>)         python's torch.version.cuda; empty for none
# An explicit ON that cannot be honoured is a FATAL_ERROR naming why.
function(trainyard_torch_source)
    cmake_parse_arguments(ARG "" "MODE;PYTHON;NVCC;OLD_ABI_FATAL;USER_TORCH_DIR;OUT_SOURCE;OUT_PREFIX;OUT_REASON;OUT_CUDA"
                          "USER_PREFIX" ${ARGN})
    string(TOUPPER "${ARG_MODE}" mode)
    if(mode STREQUAL "")
        set(mode AUTO)
    endif()
    if(NOT mode MATCHES "^(AUTO|ON|OFF)$")
        message(FATAL_ERROR "TRAINYARD_TORCH_FROM_PYTHON: expected AUTO, ON or OFF, got \"${ARG_MODE}\"")
    endif()
    set(source system)
    set(prefix "")
    set(cuda "")

    # The user's own LibTorch wins over a guess (a LibTorch archive, a
    # chosen environment); a CMAKE_PREFIX_PATH that only points at Qt does not count.
    set(user_torch "")
    if(ARG_USER_TORCH_DIR)
        set(user_torch "Torch_DIR=${ARG_USER_TORCH_DIR}")
    else()
        foreach(p IN LISTS ARG_USER_PREFIX)
            foreach(config IN ITEMS TorchConfig.cmake Torch/TorchConfig.cmake share/cmake/Torch/TorchConfig.cmake
                                    lib/cmake/Torch/TorchConfig.cmake)
                if(EXISTS "${p}/${config}" AND user_torch STREQUAL "")
                    set(user_torch "CMAKE_PREFIX_PATH=${p}")
                endif()
            endforeach()
        endforeach()
    endif()

    if(mode STREQUAL "OFF")
        set(reason "TRAINYARD_TORCH_FROM_PYTHON=OFF")
        if(user_torch)
            set(source user)
            set(reason "the ${user_torch} you gave")
        endif()
    elseif(mode STREQUAL "AUTO" AND user_torch)
        set(source user)
        set(reason "the ${user_torch} you gave")
    elseif(NOT ARG_PYTHON)
        set(reason "no python3 found")
    else()
        # Debian's CPU python3-torch imports too: torch.version.cuda tells.
        execute_process(
            COMMAND "${ARG_PYTHON}" -c
                    "import torch, torch.utils; print('cuda=' + (torch.version.cuda or '')); print('prefix=' + torch.utils.cmake_prefix_path); print('cxx11abi=' + str(int(torch.compiled_with_cxx11_abi())))"
            RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
        set(cxx11abi 1)
        if(rc EQUAL 0)
            string(REGEX MATCH "cuda=([^\n]*)" _ "${out}")
            set(cuda "${CMAKE_MATCH_1}")
            string(REGEX MATCH "prefix=([^\n]*)" _ "${out}")
            set(prefix "${CMAKE_MATCH_1}")
            if(out MATCHES "cxx11abi=0")
                set(cxx11abi 0)
            endif()
        endif()
        if(NOT rc EQUAL 0 OR prefix STREQUAL "")
            # The traceback's last line says why ("No module named 'torch'").
            string(STRIP "${err}" err)
            string(REGEX REPLACE ".*\n" "" err "${err}")
            if(err STREQUAL "")
                set(err "exit status ${rc}")
            endif()
            set(reason "python3's torch cannot be imported: ${err}")
            set(prefix "")
            set(cuda "")
            if(mode STREQUAL "ON")
                message(FATAL_ERROR "TRAINYARD_TORCH_FROM_PYTHON=ON, but ${ARG_PYTHON}: ${reason}")
            endif()
        elseif(NOT cxx11abi AND ARG_OLD_ABI_FATAL)
            string(CONCAT reason "python3's torch is built with the pre-C++11 string ABI, which the Qt part cannot link with; "
                       "build the worker alone with it: -DTRAINYARD_WORKER_ONLY=ON in its own build folder")
            if(mode STREQUAL "ON")
                message(FATAL_ERROR "TRAINYARD_TORCH_FROM_PYTHON=ON: ${reason}")
            endif()
            set(prefix "")
            set(cuda "")
        elseif(mode STREQUAL "ON")
            set(source python)
            set(reason "TRAINYARD_TORCH_FROM_PYTHON=ON")
        elseif(cuda STREQUAL "")
            set(reason "python3's torch has no CUDA")
            set(prefix "")
        elseif(NOT ARG_NVCC)
            # Torch's CMake files look for the CUDA toolkit and stop the
            # configure without it: stay with the CPU build rather than fail.
            string(CONCAT reason "python3's torch has CUDA ${cuda}, but its CMake files need the CUDA toolkit (nvcc), which was "
                       "not found; install it or set CUDAToolkit_ROOT, then configure again")
            set(prefix "")
            set(cuda "")
        else()
            set(source python)
            set(reason "torch.utils.cmake_prefix_path")
        endif()
    endif()
    set(${ARG_OUT_SOURCE} "${source}" PARENT_SCOPE)
    set(${ARG_OUT_PREFIX} "${prefix}" PARENT_SCOPE)
    set(${ARG_OUT_REASON} "${reason}" PARENT_SCOPE)
    set(${ARG_OUT_CUDA} "${cuda}" PARENT_SCOPE)
endfunction()

# find_package(Torch REQUIRED) from the source trainyard_torch_source()
# chooses, with one configure line saying which LibTorch and why.
macro(trainyard_find_torch)
    set(TRAINYARD_TORCH_FROM_PYTHON AUTO CACHE STRING
        "Build trainyard-worker against python3's PyTorch: AUTO (when it has CUDA), ON or OFF")
    set_property(CACHE TRAINYARD_TORCH_FROM_PYTHON PROPERTY STRINGS AUTO ON OFF)
    set(TRAINYARD_PYTHON "" CACHE FILEPATH "The python3 whose torch AUTO and ON look at; empty: python3 on PATH")
    unset(_ty_python)
    if(TRAINYARD_PYTHON)
        set(_ty_python "${TRAINYARD_PYTHON}")
    else()
        find_program(_ty_python python3 NO_CACHE)
    endif()
    # Where CMake's CUDAToolkit (what Torch's files call) looks for nvcc.
    unset(_ty_nvcc)
    if(CMAKE_CUDA_COMPILER)
        set(_ty_nvcc "${CMAKE_CUDA_COMPILER}")
    else()
        find_program(_ty_nvcc nvcc NO_CACHE HINTS "${CUDAToolkit_ROOT}" "$ENV{CUDAToolkit_ROOT}" "$ENV{CUDA_PATH}"
                     PATH_SUFFIXES bin PATHS /usr/local/cuda/bin)
    endif()
    # A Torch_DIR an earlier configure here found is the user's choice only
    # if the user chose that LibTorch then.
    set(_ty_user_torch_dir "")
    if(Torch_DIR AND (NOT Torch_DIR STREQUAL "${TRAINYARD_TORCH_FOUND_DIR}" OR TRAINYARD_TORCH_CHOICE STREQUAL "user"))
        set(_ty_user_torch_dir "${Torch_DIR}")
    endif()
    set(_ty_old_abi_fatal ON)
    if(TRAINYARD_WORKER_ONLY)
        set(_ty_old_abi_fatal OFF) # core/worker/CMakeLists.txt uses the torch's ABI then
    endif()
    trainyard_torch_source(MODE "${TRAINYARD_TORCH_FROM_PYTHON}" PYTHON "${_ty_python}" NVCC "${_ty_nvcc}"
                           OLD_ABI_FATAL ${_ty_old_abi_fatal} USER_PREFIX "${CMAKE_PREFIX_PATH}"
                           USER_TORCH_DIR "${_ty_user_torch_dir}" OUT_SOURCE _ty_source OUT_PREFIX _ty_prefix
                           OUT_REASON _ty_reason OUT_CUDA _ty_cuda)
    set(_ty_choice "${_ty_source}")
    if(_ty_source STREQUAL "python")
        set(_ty_choice "python|${_ty_prefix}")
    endif()
    # Another LibTorch than last time in this build folder: forget what
    # Torch's files cached (its folders and libraries), or the old one stays.
    if(DEFINED TRAINYARD_TORCH_FOUND_DIR
       AND (NOT _ty_choice STREQUAL "${TRAINYARD_TORCH_CHOICE}"
            OR (_ty_user_torch_dir AND NOT _ty_user_torch_dir STREQUAL "${TRAINYARD_TORCH_FOUND_DIR}")))
        get_filename_component(_ty_libdir "${TORCH_LIBRARY}" DIRECTORY)
        get_cmake_property(_ty_cached CACHE_VARIABLES)
        foreach(_ty_var IN LISTS _ty_cached)
            if(_ty_var STREQUAL "Caffe2_DIR" OR (_ty_var STREQUAL "Torch_DIR" AND NOT _ty_user_torch_dir))
                unset(${_ty_var} CACHE)
            elseif(_ty_var MATCHES "_LIBRARY$" AND _ty_libdir)
                get_filename_component(_ty_dir "${${_ty_var}}" DIRECTORY)
                if(_ty_dir STREQUAL _ty_libdir)
                    unset(${_ty_var} CACHE)
                endif()
            endif()
        endforeach()
        message(STATUS "trainyard-worker: another LibTorch than this build folder's last one (${TRAINYARD_TORCH_FOUND_DIR})")
    endif()
    if(_ty_source STREQUAL "python")
        list(PREPEND CMAKE_PREFIX_PATH "${_ty_prefix}")
    endif()
    find_package(Torch REQUIRED)
    set(TRAINYARD_TORCH_FOUND_DIR "${Torch_DIR}" CACHE INTERNAL "The Torch_DIR the last configure found")
    set(TRAINYARD_TORCH_CHOICE "${_ty_choice}" CACHE INTERNAL "The last configure's LibTorch source")

    # Debian's TorchConfig.cmake sets no version: read the header.
    set(_ty_version "${Torch_VERSION}")
    if(NOT _ty_version)
        foreach(_ty_dir IN LISTS TORCH_INCLUDE_DIRS)
            if(EXISTS "${_ty_dir}/torch/version.h" AND NOT _ty_version)
                file(STRINGS "${_ty_dir}/torch/version.h" _ty_lines REGEX "define TORCH_VERSION_(MAJOR|MINOR|PATCH) ")
                string(REGEX REPLACE "[^;]*_(MAJOR|MINOR|PATCH) ([0-9]+)" "\\2" _ty_parts "${_ty_lines}")
                string(REPLACE ";" "." _ty_version "${_ty_parts}")
            endif()
        endforeach()
    endif()
    # Torch's Caffe2 files set CAFFE2_USE_CUDA for a CUDA LibTorch.
    if(_ty_cuda)
        set(_ty_what "LibTorch ${_ty_version} with CUDA ${_ty_cuda}")
    elseif(CAFFE2_USE_CUDA)
        set(_ty_what "LibTorch ${_ty_version} with CUDA ${CUDAToolkit_VERSION}${CUDA_VERSION_STRING}")
    else()
        set(_ty_what "LibTorch ${_ty_version}, CPU only,")
    endif()
    if(_ty_source STREQUAL "python")
        set(_ty_from "python3's torch")
    else()
        set(_ty_from "${Torch_DIR}")
    endif()
    message(STATUS "trainyard-worker: ${_ty_what} from ${_ty_from} (${_ty_reason})")
endmacro()
