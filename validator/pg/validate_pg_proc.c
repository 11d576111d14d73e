/*
 * validate_pg_proc: the generated table of pg_catalog's and
 * information_schema's function names. The rows live in
 * validate_pg_proc.inc, data written by integration/tools/gen_pg_functions.py
 * (sorted in strcmp order, one name a line); regenerate it for a new server
 * version rather than editing it, and read the diff.
 */
#include "validator/pg/validate_pg_proc.h"

#include "base/name_table.h"

/* clang-format off */
static const struct pgv_proc procs[] = {
#include "validator/pg/validate_pg_proc.inc"
};
/* clang-format on */

const struct pgv_proc *pgv_proc_find(const char *name)
{
	return name_table_find(procs, NAME_TABLE_LEN(procs), sizeof(procs[0]), name);
}

bool pgv_proc_table_sorted(void)
{
	return name_table_sorted(procs, NAME_TABLE_LEN(procs), sizeof(procs[0]));
}

const struct pgv_proc *pgv_proc_entry(size_t i)
{
	return i < NAME_TABLE_LEN(procs) ? &procs[i] : NULL;
}
