/* Calls the CNN example (examples/cnn.onnx) compiled into a shared library by
 *   tb-translate examples/cnn.onnx --emit=shared-lib --threads=4 -o build/libcnn.so
 * through the header written next to it (build/libcnn.h), on an input it makes itself.
 * It saves that input and the result as .npy files, so `tb-run --input ... --expected ...`
 * can check the library against TensorBind's own run, and prints the result and the
 * number of threads the process has (the runtime's thread pool, started by the call).
 *
 *   cc -O2 -Ibuild examples/deploy/cnn_main.c -Lbuild -lcnn -Wl,-rpath,build -o cnn_main
 *   ./cnn_main image.npy probabilities.npy */

#include <stdio.h>
#include <string.h>

#include "libcnn.h"

/* Writes `count` floats of `shape` as a version 1.0 .npy file. */
static int write_npy(const char *path, const float *data, size_t count, const char *shape) {
    char header[128];
    int length = snprintf(header, sizeof header,
                          "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape);
    /* The magic, version and length take 10 bytes; the header ends in '\n' and the data
     * starts at a multiple of 64. */
    int padded = ((10 + length + 1 + 63) / 64) * 64 - 10;
    FILE *file = fopen(path, "wb");
    if (file == NULL)
        return -1;
    fwrite("\x93NUMPY\x01\x00", 1, 8, file);
    unsigned char size[2] = {(unsigned char)(padded & 0xff), (unsigned char)(padded >> 8)};
    fwrite(size, 1, 2, file);
    fwrite(header, 1, (size_t)length, file);
    for (int i = length; i < padded - 1; i++)
        fputc(' ', file);
    fputc('\n', file);
    fwrite(data, sizeof(float), count, file);
    return fclose(file);
}

/* The number of threads of this process, from /proc/self/status (0 if unknown). */
static int thread_count(void) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    int threads = 0;
    while (status != NULL && fgets(line, sizeof line, status) != NULL)
        if (strncmp(line, "Threads:", 8) == 0)
            sscanf(line + 8, "%d", &threads);
    if (status != NULL)
        fclose(status);
    return threads;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s IMAGE.npy PROBABILITIES.npy\n", argv[0]);
        return 2;
    }
    static float image[1 * 1 * 28 * 28];
    float probabilities[1 * 10];
    for (int i = 0; i < 28 * 28; i++)
        image[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
    int32_t status = tb_cnn(image, probabilities);
    if (status != 0) {
        fprintf(stderr, "the model failed: %s\n", tb_cnn_status_message(status));
        return 1;
    }
    if (write_npy(argv[1], image, 28 * 28, "(1, 1, 28, 28)") != 0 ||
        write_npy(argv[2], probabilities, 10, "(1, 10)") != 0) {
        perror("cannot write the .npy files");
        return 1;
    }
    for (int j = 0; j < 10; j++)
        printf("probabilities[%d] = %.6f\n", j, probabilities[j]);
    printf("threads: %d\n", thread_count());
    return 0;
}
