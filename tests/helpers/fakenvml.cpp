// A fake libnvidia-ml.so.1: NVML's entry points that DeviceInventory
// resolves (core/orchestration/devices/deviceinventory.cpp), with NVML's
// layouts and return codes, answering from a text file. A test puts this
// library's folder (build/tests/fakenvml) on LD_LIBRARY_PATH and the app's
// own dlopen finds it: GPUs on a machine without one, through the real path.
//
// The state file is named by TRAINYARD_FAKE_NVML and read again on every
// call, so a test or a process may change it while the app polls. One entry
// a line; blank lines and lines starting with '#' are skipped:
//
//   gpu INDEX TOTAL_BYTES "NAME" [UTIL_PERCENT [TEMP_C [POWER_MW]]]
//   proc PID GPU_INDEX BYTES
//
// "-" for UTIL_PERCENT, TEMP_C or POWER_MW, like a field left out, answers
// NVML_ERROR_NOT_SUPPORTED. A GPU's used memory is the sum of the bytes of
// its live processes; a proc line whose pid no longer exists (kill(pid, 0)
// fails with ESRCH) is skipped, so killing a process frees its memory as on
// a real GPU. Free is total - used (0 when the processes claim more). A pid
// with several lines on one GPU is one process with their sum. The device
// count is the highest INDEX + 1; an index without a gpu line answers
// NVML_ERROR_GPU_IS_LOST. At most 64 GPUs and 1024 proc lines.
//
// Errors as NVML has them: TRAINYARD_FAKE_NVML unset or its file unreadable
// is NVML_ERROR_DRIVER_NOT_LOADED (nvmlInit_v2 included); a line that cannot
// be read is NVML_ERROR_UNKNOWN, the line named on stderr.
//
// Writers append whole lines with O_APPEND, one write() a line
// (tests/helpers/fakenvmlregister.h), or rename a new file over it
// (QSaveFile), so a reader never sees half a line.
//
// Built a second time with FAKE_NVML_V1_ONLY (build/tests/fakenvml-v1): a
// driver without nvmlDeviceGetComputeRunningProcesses_v3/_v2, so the app's
// fallback to the first version is used.

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <sys/types.h>

// nvmlDevice_t: opaque to the caller; here the address of g_handles[INDEX].
using nvmlDevice_t = void *;

namespace {

// nvml.h's values (a stable ABI).
enum Return : int {
    kSuccess = 0,
    kUninitialized = 1,
    kInvalidArgument = 2,
    kNotSupported = 3,
    kInsufficientSize = 7,
    kDriverNotLoaded = 9,
    kGpuIsLost = 15,
    kUnknown = 999,
};
constexpr unsigned kTemperatureGpu = 0;      // NVML_TEMPERATURE_GPU
constexpr unsigned kValueNotAvailable = ~0u; // a process's MIG instance ids without MIG

constexpr int kMaxGpus = 64;
constexpr int kMaxProcs = 1024;
constexpr int kNameSize = 96; // NVML_DEVICE_NAME_V2_BUFFER_SIZE

struct Gpu
{
    bool present = false;
    unsigned long long total = 0;
    char name[kNameSize] = {};
    long long util = -1, temp = -1, powerMw = -1; // -1: not supported
};
struct Proc
{
    unsigned pid = 0;
    int gpu = 0;
    unsigned long long bytes = 0;
};
struct State
{
    int count = 0;
    Gpu gpus[kMaxGpus];
    int procCount = 0;
    Proc procs[kMaxProcs];
};

std::mutex g_mutex; // guards g_initCount and g_lastComplaint
int g_initCount = 0;
char g_lastComplaint[512] = {};

// Says once (not on every poll) what is wrong with the state file.
void complain(const char *path, int lineNumber, const char *what)
{
    char message[sizeof g_lastComplaint];
    std::snprintf(message, sizeof message, "fake nvml: %s:%d: %s\n", path, lineNumber, what);
    std::lock_guard<std::mutex> lock(g_mutex);
    if (std::strcmp(message, g_lastComplaint) != 0) {
        std::fputs(message, stderr);
        std::memcpy(g_lastComplaint, message, sizeof message);
    }
}

bool initialized()
{
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_initCount > 0;
}

bool alive(unsigned pid)
{
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

// The next field: a "quoted string" (no quote inside) or a word.
bool nextField(char **cursor, char *out, size_t size)
{
    char *p = *cursor;
    while (*p == ' ' || *p == '\t') {
        ++p;
    }
    if (*p == '\0' || *p == '\n') {
        return false;
    }
    const char *start = p;
    if (*p == '"') {
        start = ++p;
        while (*p != '"' && *p != '\0') {
            ++p;
        }
        if (*p != '"') {
            return false;
        }
    } else {
        while (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\0') {
            ++p;
        }
    }
    const size_t n = static_cast<size_t>(p - start);
    if (n >= size) {
        return false;
    }
    std::memcpy(out, start, n);
    out[n] = '\0';
    *cursor = *p == '"' ? p + 1 : p;
    return true;
}

bool number(const char *text, unsigned long long max, unsigned long long *out)
{
    if (*text < '0' || *text > '9') {
        return false;
    }
    errno = 0;
    char *end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || v > max) {
        return false;
    }
    *out = v;
    return true;
}

// An optional figure: absent or "-" is -1.
bool optional(char **cursor, unsigned long long max, long long *out)
{
    char field[32];
    if (!nextField(cursor, field, sizeof field)) {
        return true;
    }
    if (std::strcmp(field, "-") == 0) {
        return true;
    }
    unsigned long long v = 0;
    if (!number(field, max, &v)) {
        return false;
    }
    *out = static_cast<long long>(v);
    return true;
}

bool parseLine(char *line, State *s, const char **why)
{
    char *cursor = line;
    char kind[16], a[32], b[32], c[kNameSize];
    if (line[std::strspn(line, " \t\r\n")] == '\0' || line[std::strspn(line, " \t")] == '#') {
        return true; // blank or a comment
    }
    if (!nextField(&cursor, kind, sizeof kind)) {
        kind[0] = '\0';
    }
    if (std::strcmp(kind, "gpu") == 0) {
        unsigned long long index = 0, total = 0;
        if (!nextField(&cursor, a, sizeof a) || !number(a, kMaxGpus - 1, &index)) {
            *why = "gpu: INDEX must be 0 to 63";
            return false;
        }
        if (!nextField(&cursor, b, sizeof b) || !number(b, ULLONG_MAX, &total)) {
            *why = "gpu: TOTAL_BYTES must be a number";
            return false;
        }
        if (!nextField(&cursor, c, sizeof c)) {
            *why = "gpu: NAME missing (\"in quotes\", under 96 bytes)";
            return false;
        }
        Gpu &g = s->gpus[index];
        if (g.present) {
            *why = "gpu: INDEX listed twice";
            return false;
        }
        g.present = true;
        g.total = total;
        std::memcpy(g.name, c, sizeof g.name);
        if (!optional(&cursor, 100, &g.util) || !optional(&cursor, 1000, &g.temp)
            || !optional(&cursor, UINT_MAX, &g.powerMw)) {
            *why = "gpu: UTIL_PERCENT (0-100), TEMP_C and POWER_MW must be numbers or -";
            return false;
        }
        if (nextField(&cursor, a, sizeof a)) {
            *why = "gpu: too many fields";
            return false;
        }
        if (static_cast<int>(index) >= s->count) {
            s->count = static_cast<int>(index) + 1;
        }
        return true;
    }
    if (std::strcmp(kind, "proc") == 0) {
        unsigned long long pid = 0, gpu = 0, bytes = 0;
        if (!nextField(&cursor, a, sizeof a) || !number(a, INT_MAX, &pid) || pid == 0
            || !nextField(&cursor, b, sizeof b) || !number(b, kMaxGpus - 1, &gpu) || !nextField(&cursor, c, sizeof c)
            || !number(c, ULLONG_MAX, &bytes) || nextField(&cursor, a, sizeof a)) {
            *why = "proc: expected PID GPU_INDEX BYTES";
            return false;
        }
        if (!alive(static_cast<unsigned>(pid))) {
            return true;
        }
        for (int i = 0; i < s->procCount; ++i) {
            Proc &p = s->procs[i];
            if (p.pid == pid && p.gpu == static_cast<int>(gpu)) {
                p.bytes += bytes;
                return true;
            }
        }
        if (s->procCount == kMaxProcs) {
            *why = "proc: more than 1024 live processes";
            return false;
        }
        s->procs[s->procCount++] = Proc{static_cast<unsigned>(pid), static_cast<int>(gpu), bytes};
        return true;
    }
    *why = "expected \"gpu ...\" or \"proc ...\"";
    return false;
}

int readState(State *s)
{
    const char *path = std::getenv("TRAINYARD_FAKE_NVML");
    if (!path || !*path) {
        return kDriverNotLoaded;
    }
    std::FILE *f = std::fopen(path, "re");
    if (!f) {
        return kDriverNotLoaded;
    }
    char line[512];
    int lineNumber = 0;
    int rc = kSuccess;
    while (std::fgets(line, sizeof line, f)) {
        ++lineNumber;
        const char *why = nullptr;
        if (!std::strchr(line, '\n') && !std::feof(f)) {
            why = "line longer than 510 bytes";
        } else if (!parseLine(line, s, &why) && !why) {
            why = "cannot be read";
        }
        if (why) {
            complain(path, lineNumber, why);
            rc = kUnknown;
            break;
        }
    }
    std::fclose(f);
    return rc;
}

char g_handles[kMaxGpus]; // only their addresses are used

// What a call on one device sees: the state, and the device's index.
int deviceState(nvmlDevice_t device, State *s, int *index)
{
    if (!initialized()) {
        return kUninitialized;
    }
    const auto at = reinterpret_cast<std::uintptr_t>(device);
    const auto first = reinterpret_cast<std::uintptr_t>(g_handles);
    if (at < first || at >= first + kMaxGpus) {
        return kInvalidArgument;
    }
    const int rc = readState(s);
    if (rc != kSuccess) {
        return rc;
    }
    *index = static_cast<int>(at - first);
    return s->gpus[*index].present ? kSuccess : kGpuIsLost;
}

// nvmlDeviceGetComputeRunningProcesses in each version: the count is asked
// with *infoCount too small (0, infos null), then the list is read.
template <typename Info>
int processes(nvmlDevice_t device, unsigned int *infoCount, Info *infos, void (*fill)(Info *, const Proc &))
{
    State s;
    int index = 0;
    const int rc = deviceState(device, &s, &index);
    if (rc != kSuccess) {
        return rc;
    }
    if (!infoCount) {
        return kInvalidArgument;
    }
    unsigned needed = 0;
    for (int i = 0; i < s.procCount; ++i) {
        needed += s.procs[i].gpu == index ? 1 : 0;
    }
    if (*infoCount < needed) {
        *infoCount = needed;
        return kInsufficientSize;
    }
    if (needed > 0 && !infos) {
        return kInvalidArgument;
    }
    unsigned n = 0;
    for (int i = 0; i < s.procCount; ++i) {
        if (s.procs[i].gpu == index) {
            fill(&infos[n++], s.procs[i]);
        }
    }
    *infoCount = n;
    return kSuccess;
}

} // namespace

extern "C" {

// nvmlMemory_t, nvmlUtilization_t, nvmlProcessInfo_v1_t and nvmlProcessInfo_t
// (the layout of _v2 and _v3).
struct nvmlMemory_t
{
    unsigned long long total, free, used;
};
struct nvmlUtilization_t
{
    unsigned int gpu, memory;
};
struct nvmlProcessInfo_v1_t
{
    unsigned int pid;
    unsigned long long usedGpuMemory;
};
struct nvmlProcessInfo_t
{
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};

int nvmlInit_v2()
{
    State s;
    const int rc = readState(&s);
    if (rc != kSuccess) {
        return rc;
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_initCount;
    return kSuccess;
}

int nvmlShutdown()
{
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_initCount == 0) {
        return kUninitialized;
    }
    --g_initCount;
    return kSuccess;
}

int nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
    if (!initialized()) {
        return kUninitialized;
    }
    if (!deviceCount) {
        return kInvalidArgument;
    }
    State s;
    const int rc = readState(&s);
    if (rc == kSuccess) {
        *deviceCount = static_cast<unsigned>(s.count);
    }
    return rc;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    if (!initialized()) {
        return kUninitialized;
    }
    State s;
    const int rc = readState(&s);
    if (rc != kSuccess) {
        return rc;
    }
    if (!device || index >= static_cast<unsigned>(s.count)) {
        return kInvalidArgument;
    }
    if (!s.gpus[index].present) {
        return kGpuIsLost;
    }
    *device = &g_handles[index];
    return kSuccess;
}

int nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    State s;
    int index = 0;
    const int rc = deviceState(device, &s, &index);
    if (rc != kSuccess) {
        return rc;
    }
    if (!name) {
        return kInvalidArgument;
    }
    const size_t n = std::strlen(s.gpus[index].name);
    if (n + 1 > length) {
        return kInsufficientSize;
    }
    std::memcpy(name, s.gpus[index].name, n + 1);
    return kSuccess;
}

int nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    State s;
    int index = 0;
    const int rc = deviceState(device, &s, &index);
    if (rc != kSuccess) {
        return rc;
    }
    if (!memory) {
        return kInvalidArgument;
    }
    unsigned long long used = 0;
    for (int i = 0; i < s.procCount; ++i) {
        if (s.procs[i].gpu == index) {
            used += s.procs[i].bytes;
        }
    }
    const unsigned long long total = s.gpus[index].total;
    *memory = nvmlMemory_t{total, used < total ? total - used : 0, used};
    return kSuccess;
}

int nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
    State s;
    int index = 0;
    const int rc = deviceState(device, &s, &index);
    if (rc != kSuccess) {
        return rc;
    }
    if (!utilization) {
        return kInvalidArgument;
    }
    if (s.gpus[index].util < 0) {
        return kNotSupported;
    }
    *utilization = nvmlUtilization_t{static_cast<unsigned>(s.gpus[index].util), 0};
    return kSuccess;
}

int nvmlDeviceGetTemperature(nvmlDevice_t device, int sensorType, unsigned int *temp)
{
    State s;
    int index = 0;
    const int rc = deviceState(device, &s, &index);
    if (rc != kSuccess) {
        return rc;
    }
    if (!temp || static_cast<unsigned>(sensorType) != kTemperatureGpu) {
        return kInvalidArgument;
    }
    if (s.gpus[index].temp < 0) {
        return kNotSupported;
    }
    *temp = static_cast<unsigned>(s.gpus[index].temp);
    return kSuccess;
}

int nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
    State s;
    int index = 0;
    const int rc = deviceState(device, &s, &index);
    if (rc != kSuccess) {
        return rc;
    }
    if (!power) {
        return kInvalidArgument;
    }
    if (s.gpus[index].powerMw < 0) {
        return kNotSupported;
    }
    *power = static_cast<unsigned>(s.gpus[index].powerMw);
    return kSuccess;
}

#ifndef FAKE_NVML_V1_ONLY
int nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_t *infos)
{
    return processes<nvmlProcessInfo_t>(device, infoCount, infos, [](nvmlProcessInfo_t *out, const Proc &p) {
        *out = nvmlProcessInfo_t{p.pid, p.bytes, kValueNotAvailable, kValueNotAvailable};
    });
}

int nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_t *infos)
{
    return nvmlDeviceGetComputeRunningProcesses_v3(device, infoCount, infos);
}
#endif

int nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_v1_t *infos)
{
    return processes<nvmlProcessInfo_v1_t>(device, infoCount, infos, [](nvmlProcessInfo_v1_t *out, const Proc &p) {
        *out = nvmlProcessInfo_v1_t{p.pid, p.bytes};
    });
}

} // extern "C"
