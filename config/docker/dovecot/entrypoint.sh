#!/bin/sh
# Writes the one mailbox user from the environment (MAILBOX_USER, MAILBOX_PASSWORD), then runs Dovecot.
set -eu
: "${MAILBOX_USER:=tourney}"
: "${MAILBOX_PASSWORD:?MAILBOX_PASSWORD must be set}"
umask 027
# stored as SHA512-CRYPT, never in clear
HASH=$(doveadm pw -s SHA512-CRYPT -p "$MAILBOX_PASSWORD")
printf '%s:%s\n' "$MAILBOX_USER" "$HASH" > /etc/dovecot/users
chown root:dovecot /etc/dovecot/users
chown vmail:vmail /var/mail
exec "$@"
