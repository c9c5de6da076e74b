/* consumer/main.c - links the installed runtime and makes calls that work
 * without a GPU (versions, statuses, argument checks). */
#include <cutec/cutec.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    if (cutec_version_number() != CUTEC_VERSION_NUMBER) return 1;
    if (strcmp(cutec_status_string(CUTEC_ERR_PACK_ARCH), "pack built for another architecture") != 0) return 2;
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 16, 16, 16, CUTEC_DTYPE_BF16, CUTEC_DTYPE_F32);
    if (p.struct_size != sizeof p || cutec_gemm(NULL, &p, NULL, NULL, NULL, NULL) != CUTEC_ERR_INVALID_ARGUMENT)
        return 3;
    cutec_gemm_handle *h = (cutec_gemm_handle *)1;
    if (cutec_gemm_create(NULL, &h) != CUTEC_ERR_INVALID_ARGUMENT || h != NULL) return 4;
    cutec_gemm_destroy(NULL);
    printf("cutec %s consumer ok\n", cutec_version_string());
    return 0;
}
