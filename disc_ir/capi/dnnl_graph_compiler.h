/*
 * disc-ir as a pluggable graph compiler of oneDNN's Graph API: the C API of
 * oneDNN's "pluggable compiler backend" RFC, implemented by
 * libdisc_graph_compiler.so (build it with `python -m disc_ir.capi.build`).
 *
 * oneDNN's backend dlopens the library, checks the API's major version
 * (dnnl_graph_compiler_get_version), serializes a partition to JSON (benchdnn's
 * graph format) and calls dnnl_graph_compiler_compile, then
 * dnnl_graph_compiler_execute with tensors matched to the graph's ports by id.
 * Every failure returns a dnnl_status_t other than dnnl_success; the message
 * says why (dnnl_graph_compiler_get_last_error, per thread).
 */
#ifndef DNNL_GRAPH_COMPILER_H
#define DNNL_GRAPH_COMPILER_H

#include <stddef.h>
#include <stdint.h>

#ifndef DNNL_API
#define DNNL_API
#endif

#if defined(DNNL_GRAPH_COMPILER_USE_DNNL_TYPES)
#include "dnnl_types.h"
#else
/* oneDNN's status codes (dnnl_types.h), for callers without oneDNN's headers. */
typedef enum {
    dnnl_success = 0,
    dnnl_out_of_memory = 1,
    dnnl_invalid_arguments = 2,
    dnnl_unimplemented = 3,
    dnnl_last_impl_reached = 4,
    dnnl_runtime_error = 5,
    dnnl_not_required = 6,
    dnnl_invalid_graph = 7,
    dnnl_invalid_graph_op = 8,
    dnnl_invalid_shape = 9,
    dnnl_invalid_data_type = 10,
} dnnl_status_t;
#endif

/* The API version oneDNN's loader checks (major must match) and disc-ir's. */
#define DNNL_GRAPH_COMPILER_API_VERSION_MAJOR 0
#define DNNL_GRAPH_COMPILER_API_VERSION_MINOR 1
#define DNNL_GRAPH_COMPILER_API_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

struct dnnl_graph_compiler;
struct dnnl_graph_compiler_executable;

struct dnnl_graph_compiler_context {
    uint32_t num_threads;

    void *(*allocator)(size_t size);
    void (*deallocator)(void *ptr);
};

struct dnnl_graph_compiler_tensor {
    size_t id;
    uint8_t ndims;
    size_t *dims;
    void *data;
};
typedef struct dnnl_graph_compiler_tensor dnnl_graph_compiler_tensor;

struct dnnl_graph_compiler_version {
    struct {
        uint8_t major;
        uint8_t minor;
        uint8_t patch;
    } api_version;
    struct {
        uint8_t major;
        uint8_t minor;
        uint8_t patch;
        const char *hash;
    } gc_version;
};

DNNL_API const struct dnnl_graph_compiler_version *dnnl_graph_compiler_get_version(void);

DNNL_API dnnl_status_t dnnl_graph_compiler_create(
        const struct dnnl_graph_compiler_context *ctx,
        const struct dnnl_graph_compiler **gc);

DNNL_API void dnnl_graph_compiler_destroy(const struct dnnl_graph_compiler *gc);

DNNL_API dnnl_status_t dnnl_graph_compiler_compile(
        const struct dnnl_graph_compiler *gc, const char *graph_json,
        const struct dnnl_graph_compiler_executable **exe);

DNNL_API void dnnl_graph_compiler_destroy_executable(
        const struct dnnl_graph_compiler *gc,
        const struct dnnl_graph_compiler_executable *exe);

DNNL_API dnnl_status_t dnnl_graph_compiler_execute(
        const struct dnnl_graph_compiler *gc,
        const struct dnnl_graph_compiler_executable *exe,
        dnnl_graph_compiler_tensor *inputs,
        dnnl_graph_compiler_tensor *outputs);

/* The message of the last failure of a call on this thread ("" if none). */
DNNL_API const char *dnnl_graph_compiler_get_last_error(void);

#ifdef __cplusplus
}
#endif
#endif /* DNNL_GRAPH_COMPILER_H */
