/* The loaded objects' file names, copied out of the loader's list. */
#ifndef NH_OBJECTS_H
#define NH_OBJECTS_H

/* The file names of the loaded objects in load order (the program's own,
 * with an empty name, left out): a NULL-terminated array in one
 * allocation, for free(); NULL when out of memory.  Nothing is asked of
 * the loader during its walk: dlopen or dlsym inside a dl_iterate_phdr
 * callback takes the loader's locks in the order opposite to dlopen's own,
 * a deadlock beside a thread that loads a library. */
char **nh_loaded_objects(void);

/* How many objects the loader has added and removed so far (0 where it
 * does not say): unchanged, the list is unchanged.  O(1). */
unsigned long long nh_loaded_generation(void);

#endif
