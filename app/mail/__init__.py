"""Mail: IMAP inbound, MIME decoding, commands, replies and the SMTP outbox."""
