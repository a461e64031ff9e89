/* FMA peak of one core: independent chains of vector FMAs, as many as hide the FMA
 * latency, on the widest vectors the compiler targets (-march=native). Prints GFLOP/s of
 * `threads` copies running at once (each its own thread), so 1 and 2 threads are measured
 * the same way the GEMMs are. Usage: fma_peak THREADS SECONDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__AVX512F__)
#define LANES 16
#elif defined(__AVX__)
#define LANES 8
#else
#define LANES 4
#endif
#define CHAINS 12
typedef float vec __attribute__((vector_size(LANES * 4)));

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile float sink;
static double seconds;

static void *worker(void *out) {
    vec acc[CHAINS], a, b;
    for (int i = 0; i < LANES; i++) { a[i] = 0.999999f; b[i] = 1e-7f; }
    for (int c = 0; c < CHAINS; c++) acc[c] = b * (float)c;
    long iters = 0;
    double start = now(), elapsed = 0;
    while (elapsed < seconds) {
        for (int r = 0; r < 100000; r++) {
            for (int c = 0; c < CHAINS; c++) acc[c] = acc[c] * a + b;
        }
        iters += 100000;
        elapsed = now() - start;
    }
    float s = 0;
    for (int c = 0; c < CHAINS; c++) for (int i = 0; i < LANES; i++) s += acc[c][i];
    sink = s;
    *(double *)out = 2.0 * LANES * CHAINS * iters / elapsed / 1e9;
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    seconds = argc > 2 ? atof(argv[2]) : 0.5;
    if (threads < 1 || threads > 256) return 2;
    pthread_t ids[256];
    double rates[256];
    for (int t = 0; t < threads; t++) pthread_create(&ids[t], NULL, worker, &rates[t]);
    double total = 0;
    for (int t = 0; t < threads; t++) { pthread_join(ids[t], NULL); total += rates[t]; }
    printf("%.3f %d\n", total, LANES);
    return 0;
}
