/*
 * header_link_own_personality: a firmware, or a program that links a second
 * Rust static library, has its own rust_eh_personality. The library's is
 * weak, so this one wins and the link has no duplicate symbol.
 */
#include "link_main.h"

void rust_eh_personality(void);

static int own_called;

void rust_eh_personality(void)
{
    own_called = 1;
}

int main(void)
{
    /* The symbol is this program's: calling it runs the body above. */
    rust_eh_personality();
    if (!own_called) {
        printf("header_link_own_personality: rust_eh_personality is not this program's\n");
        return 1;
    }
    return emcp_link_main("header_link_own_personality");
}
