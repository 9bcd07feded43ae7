/* SMPI build only: force-included (-include) into the programs (benchmarks,
 * tests) that are compiled as SMPI programs with nhood linked in.  They
 * find nhood's query functions with dlsym(RTLD_DEFAULT, ...), which works
 * when nhood is preloaded; SMPI dlopens each program privately, so the
 * lookup goes to nh_smpi_dlsym (src/smpi/compat.c), which returns the
 * linked-in functions. */
#ifndef NH_SMPI_PROG_H
#define NH_SMPI_PROG_H
#include <dlfcn.h> /* before the macro: its prototype must not be rewritten */
void *nh_smpi_dlsym(void *handle, const char *name);
#define dlsym(handle, name) nh_smpi_dlsym((handle), (name))
#endif
