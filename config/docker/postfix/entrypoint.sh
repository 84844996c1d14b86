#!/bin/sh
# Fills main.cf from the environment, turns chroot off (no copied resolv.conf needed), then runs Postfix
# in the foreground (`postfix start-fg`; stop with `postfix stop`, which `docker stop` triggers via SIGTERM).
set -eu
: "${MAIL_DOMAIN:?MAIL_DOMAIN must be set}"
: "${MAIL_HOSTNAME:=mail.$MAIL_DOMAIN}"
: "${RELAYHOST:=}"
: "${LMTP_TARGET:=inet:dovecot:24}"
: "${MAILBOX_USER:=tourney}"
postconf -e \
  "myhostname = $MAIL_HOSTNAME" \
  "mydomain = $MAIL_DOMAIN" \
  "virtual_mailbox_domains = $MAIL_DOMAIN" \
  "virtual_mailbox_maps = inline:{ $MAILBOX_USER@$MAIL_DOMAIN=ok }" \
  "virtual_alias_maps = inline:{ postmaster@$MAIL_DOMAIN=$MAILBOX_USER@$MAIL_DOMAIN }" \
  "virtual_transport = lmtp:$LMTP_TARGET" \
  "relayhost = $RELAYHOST"
postconf -F '*/*/chroot = n'
postfix check
exec "$@"
