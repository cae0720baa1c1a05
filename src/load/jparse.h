/*
 * jparse.h -- parse JSON text with jansson and tell a syntax error from a
 * failed allocation (module prefix: jparse_).
 *
 * jansson (2.14, load.c) reports a failed allocation either with an empty
 * message or, where the lexer cannot copy a string, as a syntax error
 * ("invalid token", "string or '}' expected"). A syntax error is a
 * property of the text and repeats when the text is parsed again; one
 * that does not repeat was a failed allocation. Every loader of src/load/
 * parses through here, so that out of memory is SC_ENOMEM and never a
 * misleading "invalid JSON" (tests/test_alloc_faults.c).
 */
#ifndef SC_LOAD_JPARSE_H
#define SC_LOAD_JPARSE_H

#include <jansson.h>
#include <stddef.h>

/* Parse buf (len bytes) with `flags` into *root (the caller's reference).
 * SC_OK; SC_EINPUT with je saying where; or SC_ENOMEM (*root NULL). */
int jparse(const char *buf, size_t len, size_t flags, json_t **root, json_error_t *je);

#endif /* SC_LOAD_JPARSE_H */
