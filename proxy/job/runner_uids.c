/* runner_uids: processes with an id of the runner range (see runner_uids.h). */
#define _GNU_SOURCE
#include "proxy/job/runner_uids.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The four ids after "Uid:" or "Gid:" in a status line, any of them in the range. */
static bool ids_in_range(const char *line, uint32_t first, uint32_t last, unsigned long *hit)
{
	const char *p = strchr(line, ':');

	for (int i = 0; p && i < 4; i++) {
		char *end;
		unsigned long v = strtoul(p + 1, &end, 10);

		if (end == p + 1)
			break;
		if (v >= first && v <= last) {
			*hit = v;
			return true;
		}
		p = end;
	}
	return false;
}

bool runner_uids_busy(uint32_t first, uint32_t last, char *who, size_t wholen)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	bool busy = false;

	if (!d)
		return false;
	while (!busy && (de = readdir(d))) {
		char path[64], line[256], name[64] = "?";
		unsigned long hit;
		FILE *f;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/status", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* gone meanwhile */
		while (!busy && fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "Name:", 5))
				sscanf(line + 5, " %63s", name);
			else if (!strncmp(line, "State:", 6) && strchr(line + 6, 'Z'))
				break; /* a zombie runs nothing: only its exit status is left */
			else if ((!strncmp(line, "Uid:", 4) || !strncmp(line, "Gid:", 4)) &&
				 ids_in_range(line, first, last, &hit)) {
				snprintf(who, wholen, "process %s (%s) runs with %s %lu", de->d_name, name,
					 line[0] == 'U' ? "uid" : "gid", hit);
				busy = true;
			}
		}
		fclose(f);
	}
	closedir(d);
	return busy;
}
