"""Tests of the mail part (app/mail)."""
