/*
 * header_link_plain: a plain C program links with libemcp.a, with no
 * --gc-sections and no definition of its own of rust_eh_personality (the
 * library's weak one satisfies the Rust core's unwind tables on hosted
 * targets).
 */
#include "link_main.h"

int main(void)
{
    return emcp_link_main("header_link_plain");
}
