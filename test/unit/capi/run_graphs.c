/*
 * The RFC's usage example as a test driver: dlopen libdisc_graph_compiler.so as
 * oneDNN's loader does, check the API's major version, compile oneDNN Graph
 * JSON files, execute them on strided buffers and compare the outputs with
 * expected values (computed by numpy implementations of oneDNN's op semantics).
 *
 *   run_graphs LIBRARY MANIFEST
 *
 * MANIFEST, one command a line:
 *   compile JSON_PATH              compile (must succeed)
 *   compile_fail STATUS JSON_PATH  compile must fail with STATUS, with a message
 *   input ID DTYPE NDIMS D.. S.. FILE    an input buffer (FILE: the raw strided bytes)
 *   output ID DTYPE NDIMS D.. S.. FILE   an output buffer; FILE: expected values, dense
 *   exec                           execute the current tensors and compare
 *   exec_threads N                 execute from N threads at once, each its own outputs
 *   exec_fail STATUS               execute must fail with STATUS, with a message
 *   time N                         execute N times; print "time MEDIAN_MS MIN_MS"
 *   reset                          forget the current tensors
 *   destroy                        destroy the executable
 * DTYPE: f32 (relative error <= 1e-4 of max |expected|), s32, boolean (exact).
 * Prints one line per check; exits 0 when all hold.
 */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dnnl_graph_compiler.h"

typedef const struct dnnl_graph_compiler_version *(*get_version_fn)(void);
typedef dnnl_status_t (*create_fn)(const struct dnnl_graph_compiler_context *,
        const struct dnnl_graph_compiler **);
typedef void (*destroy_fn)(const struct dnnl_graph_compiler *);
typedef dnnl_status_t (*compile_fn)(const struct dnnl_graph_compiler *, const char *,
        const struct dnnl_graph_compiler_executable **);
typedef void (*destroy_exe_fn)(const struct dnnl_graph_compiler *,
        const struct dnnl_graph_compiler_executable *);
typedef dnnl_status_t (*execute_fn)(const struct dnnl_graph_compiler *,
        const struct dnnl_graph_compiler_executable *, dnnl_graph_compiler_tensor *,
        dnnl_graph_compiler_tensor *);
typedef const char *(*last_error_fn)(void);

static struct {
    get_version_fn get_version;
    create_fn create;
    destroy_fn destroy;
    compile_fn compile;
    destroy_exe_fn destroy_executable;
    execute_fn execute;
    last_error_fn last_error;
} api;

#define MAX_TENSORS 64
#define MAX_DIMS 12

typedef struct {
    size_t id;
    int dtype; /* 0 f32, 1 s32, 2 boolean */
    uint8_t ndims;
    size_t dims[MAX_DIMS];
    size_t strides[MAX_DIMS];
    size_t extent; /* elements spanned by the strides */
    void *data;    /* input: the strided buffer; output: expected, dense */
} tensor_spec;

static tensor_spec inputs[MAX_TENSORS], outputs[MAX_TENSORS];
static int n_inputs, n_outputs, failures, n_exec_ok;
static const struct dnnl_graph_compiler *gc;
static const struct dnnl_graph_compiler_executable *exe;
static char current[1024];

static long n_allocs, n_frees;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static void *counting_alloc(size_t size) {
    pthread_mutex_lock(&count_lock);
    n_allocs++;
    pthread_mutex_unlock(&count_lock);
    return malloc(size);
}

static void counting_free(void *p) {
    pthread_mutex_lock(&count_lock);
    n_frees++;
    pthread_mutex_unlock(&count_lock);
    free(p);
}

static size_t elem_size(int dtype) { return dtype == 0 || dtype == 1 ? 4 : 1; }

static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    fclose(f);
    if (size) *size = (size_t)n;
    return buf;
}

static int parse_dtype(const char *s) {
    if (!strcmp(s, "f32")) return 0;
    if (!strcmp(s, "s32")) return 1;
    if (!strcmp(s, "boolean")) return 2;
    return -1;
}

static void check(int ok, const char *what) {
    printf("%s %s: %s\n", ok ? "PASS" : "FAIL", current, what);
    if (!ok) failures++;
}

/* Compares the strided output buffer `got` with the dense expected values. */
static double compare(const tensor_spec *t, const void *got) {
    size_t count = 1;
    for (int d = 0; d < t->ndims; d++) count *= t->dims[d];
    double max_ref = 0, max_err = 0;
    int mismatch = 0;
    for (size_t i = 0; i < count; i++) {
        size_t rem = i, off = 0;
        for (int d = t->ndims - 1; d >= 0; d--) {
            off += (rem % t->dims[d]) * t->strides[d];
            rem /= t->dims[d];
        }
        if (t->dtype == 0) {
            double want = ((const float *)t->data)[i], have = ((const float *)got)[off];
            if (isnan(want) || isinf(want)) {
                if (!(isnan(want) ? isnan(have) : have == want)) mismatch = 1;
                continue;
            }
            if (fabs(want) > max_ref) max_ref = fabs(want);
            if (!(fabs(have - want) <= max_err)) max_err = isnan(have) ? INFINITY : fabs(have - want);
        } else if (t->dtype == 1) {
            if (((const int32_t *)t->data)[i] != ((const int32_t *)got)[off]) mismatch = 1;
        } else if ((((const uint8_t *)t->data)[i] != 0) != (((const uint8_t *)got)[off] != 0)) {
            mismatch = 1;
        }
    }
    if (mismatch) return INFINITY;
    return max_err == 0 ? 0 : max_err / (max_ref > 0 ? max_ref : 1e-30);
}

typedef struct {
    dnnl_status_t status;
    double err;
    char message[512];
} run_result;

static void run_once(run_result *r) {
    dnnl_graph_compiler_tensor in[MAX_TENSORS], out[MAX_TENSORS];
    void *bufs[MAX_TENSORS];
    for (int i = 0; i < n_inputs; i++) {
        in[i].id = inputs[i].id;
        in[i].ndims = inputs[i].ndims;
        in[i].dims = inputs[i].dims;
        in[i].data = inputs[i].data;
    }
    for (int i = 0; i < n_outputs; i++) {
        size_t bytes = (outputs[i].extent ? outputs[i].extent : 1) * elem_size(outputs[i].dtype);
        bufs[i] = malloc(bytes);
        memset(bufs[i], 0xff, bytes);
        out[i].id = outputs[i].id;
        out[i].ndims = outputs[i].ndims;
        out[i].dims = outputs[i].dims;
        out[i].data = bufs[i];
    }
    r->status = api.execute(gc, exe, in, out);
    if (r->status == dnnl_success) __sync_fetch_and_add(&n_exec_ok, 1);
    snprintf(r->message, sizeof r->message, "%s", api.last_error());
    r->err = 0;
    if (r->status == dnnl_success)
        for (int i = 0; i < n_outputs; i++) {
            double e = compare(&outputs[i], bufs[i]);
            if (e > r->err) r->err = e;
        }
    for (int i = 0; i < n_outputs; i++) free(bufs[i]);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Times `n` executions on the current tensors (outputs into one set of buffers). */
static void time_runs(int n) {
    dnnl_graph_compiler_tensor in[MAX_TENSORS], out[MAX_TENSORS];
    void *bufs[MAX_TENSORS];
    for (int i = 0; i < n_inputs; i++) {
        in[i].id = inputs[i].id;
        in[i].ndims = inputs[i].ndims;
        in[i].dims = inputs[i].dims;
        in[i].data = inputs[i].data;
    }
    for (int i = 0; i < n_outputs; i++) {
        bufs[i] = malloc((outputs[i].extent ? outputs[i].extent : 1) * elem_size(outputs[i].dtype));
        out[i].id = outputs[i].id;
        out[i].ndims = outputs[i].ndims;
        out[i].dims = outputs[i].dims;
        out[i].data = bufs[i];
    }
    double *t = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    int ok = 1;
    for (int k = 0; k < n; k++) {
        double t0 = now_ms();
        if (api.execute(gc, exe, in, out) != dnnl_success) ok = 0;
        t[k] = now_ms() - t0;
    }
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    if (n > 0) printf("time %.6f %.6f\n", t[n / 2], t[0]);
    check(ok, "timed executions succeed");
    free(t);
    for (int i = 0; i < n_outputs; i++) free(bufs[i]);
}

static void *thread_main(void *arg) {
    run_once((run_result *)arg);
    return NULL;
}

static void read_tensor(char *args, tensor_spec *t) {
    char dtype[16], path[1024];
    int ndims, pos = 0, n = 0;
    sscanf(args, "%zu %15s %d%n", &t->id, dtype, &ndims, &n);
    pos += n;
    t->dtype = parse_dtype(dtype);
    t->ndims = (uint8_t)ndims;
    for (int d = 0; d < ndims; d++) {
        sscanf(args + pos, "%zu%n", &t->dims[d], &n);
        pos += n;
    }
    t->extent = 1;
    int empty = 0;
    for (int d = 0; d < ndims; d++) {
        sscanf(args + pos, "%zu%n", &t->strides[d], &n);
        pos += n;
        if (t->dims[d] == 0) empty = 1;
        t->extent += (t->dims[d] - 1) * t->strides[d];
    }
    if (empty) t->extent = 0;
    sscanf(args + pos, "%1023s", path);
    t->data = read_file(path, NULL);
    if (!t->data) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
}

#define LOAD(field, name)                                     \
    api.field = (__typeof__(api.field))dlsym(lib, name);      \
    if (!api.field) {                                         \
        fprintf(stderr, "missing symbol %s\n", name);         \
        return 2;                                             \
    }

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s LIBRARY MANIFEST\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    LOAD(get_version, "dnnl_graph_compiler_get_version");
    LOAD(create, "dnnl_graph_compiler_create");
    LOAD(destroy, "dnnl_graph_compiler_destroy");
    LOAD(compile, "dnnl_graph_compiler_compile");
    LOAD(destroy_executable, "dnnl_graph_compiler_destroy_executable");
    LOAD(execute, "dnnl_graph_compiler_execute");
    LOAD(last_error, "dnnl_graph_compiler_get_last_error");

    snprintf(current, sizeof current, "loader");
    const struct dnnl_graph_compiler_version *v = api.get_version();
    check(v && v->api_version.major == DNNL_GRAPH_COMPILER_API_VERSION_MAJOR,
            "API major version matches the header");
    if (v) printf("version: api %d.%d.%d, %s\n", v->api_version.major, v->api_version.minor,
            v->api_version.patch, v->gc_version.hash);

    check(api.create(NULL, NULL) == dnnl_invalid_arguments && strlen(api.last_error()) > 0,
            "create(NULL, NULL) is dnnl_invalid_arguments with a message");
    const struct dnnl_graph_compiler_context ctx
            = {.num_threads = 2, .allocator = counting_alloc, .deallocator = counting_free};
    if (api.create(&ctx, &gc) != dnnl_success) {
        fprintf(stderr, "create failed: %s\n", api.last_error());
        return 1;
    }
    check(api.compile(gc, NULL, &exe) == dnnl_invalid_arguments, "compile(NULL json) fails");
    check(api.compile(NULL, "{}", &exe) == dnnl_invalid_arguments, "compile(NULL gc) fails");
    check(api.execute(gc, NULL, NULL, NULL) == dnnl_invalid_arguments,
            "execute(NULL executable) fails");

    FILE *manifest = fopen(argv[2], "r");
    if (!manifest) {
        fprintf(stderr, "cannot open %s\n", argv[2]);
        return 2;
    }
    char line[8192];
    while (fgets(line, sizeof line, manifest)) {
        line[strcspn(line, "\n")] = 0;
        char *args = strchr(line, ' ');
        if (args) *args++ = 0;
        if (!strcmp(line, "compile") || !strcmp(line, "compile_fail")) {
            int want = 0;
            char path[1024];
            if (!strcmp(line, "compile_fail")) sscanf(args, "%d %1023s", &want, path);
            else sscanf(args, "%1023s", path);
            snprintf(current, sizeof current, "%s", path);
            char *json = read_file(path, NULL);
            if (!json) {
                fprintf(stderr, "cannot read %s\n", path);
                return 2;
            }
            dnnl_status_t s = api.compile(gc, json, &exe);
            memset(json, 0, strlen(json)); /* the compiler keeps no pointer into it */
            free(json);
            if (want == 0) {
                check(s == dnnl_success, "compiles");
                if (s != dnnl_success) printf("  error: %s\n", api.last_error());
            } else {
                const char *msg = api.last_error();
                printf("  status %d: %s\n", (int)s, msg);
                check((int)s == want && strlen(msg) > 0, "fails with the expected status and a message");
            }
            n_inputs = n_outputs = 0;
        } else if (!strcmp(line, "input")) {
            read_tensor(args, &inputs[n_inputs++]);
        } else if (!strcmp(line, "output")) {
            read_tensor(args, &outputs[n_outputs++]);
        } else if (!strcmp(line, "exec")) {
            run_result r;
            run_once(&r);
            if (r.status != dnnl_success) printf("  error: %s\n", r.message);
            else printf("  rel err %.3g\n", r.err);
            check(r.status == dnnl_success && r.err <= 1e-4, "executes and matches");
        } else if (!strcmp(line, "exec_threads")) {
            int n = atoi(args);
            pthread_t th[16];
            run_result r[16];
            for (int i = 0; i < n; i++) pthread_create(&th[i], NULL, thread_main, &r[i]);
            int ok = 1;
            for (int i = 0; i < n; i++) {
                pthread_join(th[i], NULL);
                if (r[i].status != dnnl_success || r[i].err > 1e-4) {
                    ok = 0;
                    printf("  thread %d: status %d %s err %.3g\n", i, (int)r[i].status, r[i].message, r[i].err);
                }
            }
            check(ok, "executes from several threads at once and matches");
        } else if (!strcmp(line, "exec_fail")) {
            int want = atoi(args);
            run_result r;
            run_once(&r);
            printf("  status %d: %s\n", (int)r.status, r.message);
            check((int)r.status == want && strlen(r.message) > 0,
                    "execute fails with the expected status and a message");
        } else if (!strcmp(line, "time")) {
            time_runs(atoi(args));
        } else if (!strcmp(line, "reset")) {
            for (int i = 0; i < n_inputs; i++) free(inputs[i].data);
            for (int i = 0; i < n_outputs; i++) free(outputs[i].data);
            n_inputs = n_outputs = 0;
        } else if (!strcmp(line, "destroy")) {
            api.destroy_executable(gc, exe);
            exe = NULL;
        }
    }
    fclose(manifest);
    api.destroy(gc);
    printf("allocator: %ld allocations, %ld deallocations\n", n_allocs, n_frees);
    snprintf(current, sizeof current, "context");
    if (n_exec_ok > 0)
        check(n_allocs > 0 && n_frees <= n_allocs,
                "the context's allocator served the executables' buffers");
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
