/* kcube: the command-line tool. Subcommands live in cmd_<name>.c. */
#include "dispatch.h"

int main(int argc, char **argv) { return cli_dispatch(argc, argv); }
