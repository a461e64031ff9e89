/* Calls the functions of dense_relu.mlir, compiled into a shared library by
 * `tb-translate --emit=shared-lib`, through the header generated next to it, and prints
 * the results, one `name[index] = value` per line. The inputs follow fixed formulas so
 * that a test can recompute them. */
#include <stdio.h>

#include "libdense_relu.h"

int main(void) {
    float x[4][16], w[16][8], b[8], y[4][8], sum;
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 16; k++)
            x[i][k] = (float)((i * 16 + k) % 7 - 3) * 0.25f;
    for (int k = 0; k < 16; k++)
        for (int j = 0; j < 8; j++)
            w[k][j] = (float)((k * 8 + j) % 5 - 2) * 0.125f;
    for (int j = 0; j < 8; j++)
        b[j] = (float)(j % 3 - 1) * 0.5f;

    tb_dense_relu(&x[0][0], &w[0][0], b, &y[0][0]);
    tb_scaled_sum(&y[0][0], 0.5f, &sum);

    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++)
            printf("y[%d] = %.9g\n", i * 8 + j, y[i][j]);
    printf("sum[0] = %.9g\n", sum);
    return 0;
}
