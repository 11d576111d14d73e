/*
 * libFuzzer target for the approval page's form decoder: any bytes, three
 * fields of small bounds. Either every value is NULL or each one decoded
 * fits its bound and holds no NUL.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/approval_form.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct approval_form_field f[] = {{"csrf", 64, NULL}, {"reason", 8, NULL}, {"name", 0, NULL}};
	enum approval_form_result r = approval_form_parse((const char *)data, size, f, 3);

	for (size_t i = 0; i < 3; i++) {
		if (r != APPROVAL_FORM_OK && f[i].value)
			abort();
		if (f[i].value && strlen(f[i].value) > f[i].max)
			abort();
	}
	approval_form_free(f, 3);
	return 0;
}
