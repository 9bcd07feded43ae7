/* nhood-info: what this nhood is and how a run would use it, as ompi_info
 * and mpichversion tell of their MPI libraries.
 *
 *   nhood-info [--json]              this process (a singleton MPI run)
 *   nhood-run -np N nhood-info       what the ranks of a job see
 *   nhood-info --markdown            the settings as docs/configuration.md's tables
 *   nhood-info --names               the environment variables, one a line
 *
 * It links libnhood and asks it (include/nhood.h: nhood_info,
 * nhood_setting_get); --markdown and --names do not start MPI. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "nhood.h"

static const char *const facts[] = {
    "version",           "mpi_built",      "mpi_library", "state",       "progress",
    "progress_backends", "ranks_per_node", "cpus",        "cost_source", "cost_file",
    "cost_fingerprint",  "tune_file",      "fortran_fixes", NULL};

static void usage(FILE *f)
{
    fprintf(f, "Usage: nhood-info [--json | --markdown | --names]\n"
               "Prints nhood's version, the MPI library it was built for and runs under,\n"
               "its progress backends, cost and tuning files, and every setting with its\n"
               "default and its value in this environment.  Run it alone, or under\n"
               "nhood-run -np N to see what the ranks of a job see.\n"
               "  --json       the same as one JSON object\n"
               "  --markdown   the settings as Markdown tables (docs/configuration.md)\n"
               "  --names      the environment variables nhood knows, one a line\n");
}

/* s as a JSON string (with its quotes); NULL as null. */
static void json_str(const char *s)
{
    if (!s) {
        fputs("null", stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

/* One cell of a Markdown table row (s may be NULL), pipes escaped. */
static void md_cell(const char *s, int code)
{
    fputs(code && s && *s ? " `" : " ", stdout);
    for (; s && *s; s++)
        fputs(*s == '|' ? "\\|" : (char[]){*s, 0}, stdout);
    fputs(code && s ? "` |" : " |", stdout);
}

/* The settings as Markdown, a table per group: the columns a group's
 * rows fill (variable, info key, default, allowed, description). */
static void markdown(void)
{
    static const struct {
        const char *group, *title, *cols;
    } g[] = {
        {"library", "The library's settings: environment variables, read at `MPI_Init`", "VKDAH"},
        {"cost model",
         "The cost model's parameters: `NHOOD_COST_*`, or in a cost file the name's tail in "
         "lower case (`alpha`, `o`, ...)",
         "VDH"},
        {"info key", "Info keys of graph creation only", "KAH"},
        {"nhood-run", "Read by nhood-run", "VH"},
        {"development scripts",
         "Read by the development scripts of the source tree (not installed)", "VH"},
    };
    static const char *const head[] = {"variable", "info key", "default", "allowed", "description"};
    static const char cols[] = "VKDAH";
    nhood_setting s;
    for (size_t k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
        printf("%s### %s\n\n|", k ? "\n" : "", g[k].title);
        for (const char *c = g[k].cols; *c; c++)
            printf(" %s |", head[strchr(cols, *c) - cols]);
        printf("\n|");
        for (const char *c = g[k].cols; *c; c++)
            printf("---|");
        printf("\n");
        for (int i = 0; nhood_setting_get(i, &s); i++) {
            if (strcmp(s.group, g[k].group) != 0)
                continue;
            fputs("|", stdout);
            for (const char *c = g[k].cols; *c; c++)
                md_cell(*c == 'V'   ? s.name
                        : *c == 'K' ? s.info_key
                        : *c == 'D' ? s.def
                        : *c == 'A' ? s.allowed
                                    : s.help,
                        *c != 'H' && *c != 'A');
            printf("\n");
        }
    }
}

static void human(int size)
{
    char v[1024];
    nhood_setting s;
    for (int i = 0; facts[i]; i++) {
        nhood_info(facts[i], v, (int)sizeof(v));
        printf("%-18s %s\n", facts[i], v);
    }
    printf("%-18s %d\n", "ranks", size);
    printf("\nsettings (* set in this environment; ! not a valid value):\n");
    for (int i = 0; nhood_setting_get(i, &s); i++) {
        const char *name = s.name ? s.name : s.info_key;
        printf("%c %-26s default %-10s %s%s%s\n",
               !s.value  ? ' '
               : s.valid ? '*'
                         : '!',
               name, s.def[0] ? s.def : "-", s.value ? "value " : "", s.value ? s.value : "",
               s.value ? "" : s.help);
    }
}

static void json(int size)
{
    char v[1024];
    nhood_setting s;
    putchar('{');
    for (int i = 0; facts[i]; i++) {
        nhood_info(facts[i], v, (int)sizeof(v));
        printf("%s\"%s\": ", i ? ", " : "", facts[i]);
        json_str(v);
    }
    printf(", \"ranks\": %d, \"settings\": [", size);
    for (int i = 0; nhood_setting_get(i, &s); i++) {
        printf("%s{\"name\": ", i ? ", " : "");
        json_str(s.name);
        fputs(", \"info_key\": ", stdout);
        json_str(s.info_key);
        fputs(", \"group\": ", stdout);
        json_str(s.group);
        fputs(", \"default\": ", stdout);
        json_str(s.def);
        fputs(", \"value\": ", stdout);
        json_str(s.value);
        printf(", \"valid\": %s, \"allowed\": ", s.valid ? "true" : "false");
        json_str(s.allowed);
        fputs(", \"help\": ", stdout);
        json_str(s.help);
        putchar('}');
    }
    puts("]}");
}

int main(int argc, char **argv)
{
    int as_json = 0, rank, size;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            as_json = 1;
        else if (strcmp(argv[i], "--markdown") == 0) {
            markdown();
            return 0;
        } else if (strcmp(argv[i], "--names") == 0) {
            nhood_setting s;
            for (int k = 0; nhood_setting_get(k, &s); k++)
                if (s.name)
                    puts(s.name);
            return 0;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "nhood-info: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        if (as_json)
            json(size);
        else
            human(size);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
