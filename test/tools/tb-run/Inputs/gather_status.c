/* Calls the emitted lookup with valid and invalid ids and prints what it returns. */
#include <stdio.h>

#include "liblookup.h"

int main(void) {
    float emb[12];
    int64_t valid[4] = {0, 4, -1, -5};
    int32_t status = tb_lookup(valid, emb);
    printf("valid: status %d, emb[3] = %g, message %s\n", status, emb[3],
           tb_lookup_status_message(status) ? "set" : "NULL");
    int64_t invalid[4] = {0, 1, 7, 2};
    status = tb_lookup(invalid, emb);
    printf("invalid: status %d: %s\n", status, tb_lookup_status_message(status));
    printf("unknown: %s\n", tb_lookup_status_message(99));
    return 0;
}
