/* kcube: the command-line tool. Subcommands live in cmd_<name>.c. */
#include "dispatch.h"
#include "out.h"

int main(int argc, char **argv)
{
    /* Before anything is opened: a closed stdout must not become a file. */
    cli_std_open();
    /* Write errors (a size limit) reported, a closed pipe a quiet end, temporaries removed on SIGINT/SIGTERM/SIGHUP. */
    cli_signals_init();
    /* Every command's output, --help included, is checked once at the end. */
    return cli_finish(cli_dispatch(argc, argv));
}
