/* A oneDNN client: runs a ReLU and a reorder to a blocked layout on the
 * CPU engine, whose JIT kernels oneDNN reports through the JIT profiling
 * API when INTEL_JIT_PROFILER64 names a collector. Prints its pid. */
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <unistd.h>

#define CHECK(call)                                       \
  do {                                                    \
    dnnl_status_t s_ = (call);                            \
    if (s_ != dnnl_success) {                             \
      fprintf(stderr, "%s: status %d\n", #call, (int)s_); \
      return 2;                                           \
    }                                                     \
  } while (0)

int main(void) {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
  CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

  dnnl_dims_t dims = {2, 32, 8, 8};
  dnnl_memory_desc_t plain, blocked;
  CHECK(dnnl_memory_desc_init_by_tag(&plain, 4, dims, dnnl_f32, dnnl_nchw));
  CHECK(dnnl_memory_desc_init_by_tag(&blocked, 4, dims, dnnl_f32, dnnl_nChw16c));
  dnnl_memory_t src, dst, out;
  CHECK(dnnl_memory_create(&src, &plain, engine, DNNL_MEMORY_ALLOCATE));
  CHECK(dnnl_memory_create(&dst, &plain, engine, DNNL_MEMORY_ALLOCATE));
  CHECK(dnnl_memory_create(&out, &blocked, engine, DNNL_MEMORY_ALLOCATE));

  dnnl_eltwise_desc_t relu;
  CHECK(dnnl_eltwise_forward_desc_init(&relu, dnnl_forward_inference, dnnl_eltwise_relu, &plain,
                                       0.f, 0.f));
  dnnl_primitive_desc_t relu_pd;
  CHECK(dnnl_primitive_desc_create(&relu_pd, &relu, NULL, engine, NULL));
  dnnl_primitive_t relu_p;
  CHECK(dnnl_primitive_create(&relu_p, relu_pd));
  dnnl_exec_arg_t relu_args[2] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
  CHECK(dnnl_primitive_execute(relu_p, stream, 2, relu_args));

  dnnl_primitive_desc_t reorder_pd;
  CHECK(dnnl_reorder_primitive_desc_create(&reorder_pd, &plain, engine, &blocked, engine, NULL));
  dnnl_primitive_t reorder_p;
  CHECK(dnnl_primitive_create(&reorder_p, reorder_pd));
  dnnl_exec_arg_t reorder_args[2] = {{DNNL_ARG_FROM, dst}, {DNNL_ARG_TO, out}};
  CHECK(dnnl_primitive_execute(reorder_p, stream, 2, reorder_args));
  CHECK(dnnl_stream_wait(stream));

  dnnl_primitive_destroy(reorder_p);
  dnnl_primitive_desc_destroy(reorder_pd);
  dnnl_primitive_destroy(relu_p);
  dnnl_primitive_desc_destroy(relu_pd);
  dnnl_memory_destroy(out);
  dnnl_memory_destroy(dst);
  dnnl_memory_destroy(src);
  dnnl_stream_destroy(stream);
  dnnl_engine_destroy(engine);
  printf("%d\n", (int)getpid());
  return 0;
}
