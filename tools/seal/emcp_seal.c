/*
 * emcp-seal: checks a tool's schemas with the library's schema checker and
 * prints the seal a firmware built without the checker (the minimal
 * profile) needs in mcp_tool_t.schema_seal.
 *
 *   emcp-seal INPUT.json [OUTPUT.json]       schemas from files
 *   emcp-seal -t 'INPUT' ['OUTPUT']          schemas as arguments
 *
 * The texts must be byte for byte the ones the firmware registers (a seal
 * covers every byte, spaces included). Prints the seal as a C constant
 * (0x1234abcdu) and exits 0; a refused schema is described on stderr, as
 * mcp_server_schema_error words it, and the exit status is 1. It must link a
 * library with the checker (the full profile): without one it exits 2.
 */
#include "emcp.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file as a NUL-terminated string (a host tool may allocate). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        len += fread(buf + len, 1, cap - 1 - len, f);
        if (len < cap - 1) {
            break;
        }
        char *grown = realloc(buf, cap * 2);
        if (grown == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (buf == NULL || failed) {
        fprintf(stderr, "emcp-seal: cannot read %s\n", path);
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    if (strlen(buf) != len) {
        fprintf(stderr, "emcp-seal: %s holds a NUL byte\n", path);
        free(buf);
        return NULL;
    }
    return buf;
}

static void usage(FILE *to)
{
    fprintf(to, "usage: emcp-seal INPUT.json [OUTPUT.json]\n"
                "       emcp-seal -t 'INPUT' ['OUTPUT']\n"
                "  Checks a tool's input (and output) schema with the library's schema checker and\n"
                "  prints the seal a minimal-profile firmware needs in mcp_tool_t.schema_seal, as a\n"
                "  C constant. The texts must be byte for byte the ones the firmware registers.\n"
                "  Exit status: 0 sealed, 1 a schema is refused (why on stderr), 2 usage error or\n"
                "  a library without the checker.\n");
}

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    int texts = argc > 1 && strcmp(argv[1], "-t") == 0;
    int first = texts ? 2 : 1;
    int n = argc - first;
    if (n < 1 || n > 2) {
        usage(stderr);
        return 2;
    }
    char *schema[2] = {NULL, NULL};
    for (int i = 0; i < n; i++) {
        schema[i] = texts ? argv[first + i] : slurp(argv[first + i]);
        if (schema[i] == NULL) {
            return 2;
        }
    }
    uint32_t seal = 0;
    char why[256];
    why[0] = '\0';
    int rc = mcp_schema_seal(schema[0], schema[1], &seal, why, sizeof why);
    if (!texts) {
        free(schema[0]);
        free(schema[1]);
    }
    if (rc == 0) {
        printf("0x%08" PRIx32 "u\n", seal);
        return 0;
    }
    if (why[0] == '\0') {
        fprintf(stderr, "emcp-seal: this library has no schema checker (build it with the full profile)\n");
        return 2;
    }
    fprintf(stderr, "emcp-seal: %s\n", why);
    return 1;
}
