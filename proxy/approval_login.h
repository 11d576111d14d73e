/*
 * approval_login: an approver's name and password checked the one way for
 * both the JSON API's Basic credentials and the approval page's login
 * form (which takes an admin's too, approval_login_web): against the approver's SCRAM verifier, under the login guard
 * the listeners share (failures count per address and per name, and while a wait is due even the right password is
 * refused), with every failure audited as a failed login over "https".
 */
#ifndef AIRLOCK_PROXY_APPROVAL_LOGIN_H
#define AIRLOCK_PROXY_APPROVAL_LOGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct server;
struct evhttp_request;
struct airlock_approver;
struct airlock_config;

/*
 * The approver name names when password (borrowed; the caller wipes it) is
 * right and no wait is due; else NULL, with *wait_ms the wait in ms that
 * is due (0 when the password was only wrong). The result is borrowed from
 * srv's config. req gives the client's address.
 */
/* The approver named name in cfg (borrowed from it), or NULL. */
const struct airlock_approver *approval_login_find(const struct airlock_config *cfg, const char *name);

const struct airlock_approver *approval_login(struct server *srv, struct evhttp_request *req, const char *name,
					      const char *password, uint32_t *wait_ms);

/* Who logged in to the page: an approver, or an admin ([admin NAME]); strings borrowed from the config. */
struct web_account {
	const char *name;
	const char *scram;
	bool admin;
};
/*
 * The page's login: as approval_login, but the name may also be an
 * admin's (an approver of the same name is tried first). true with *out
 * filled when the password is right and no wait is due.
 */
bool approval_login_web(struct server *srv, struct evhttp_request *req, const char *name, const char *password,
			uint32_t *wait_ms, struct web_account *out);

#endif
