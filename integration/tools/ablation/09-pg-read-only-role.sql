-- Ablation: the demo's Postgres backend role airlock_ro may write orders,
-- read server files, and is no longer read-only by default.
-- up
ALTER ROLE airlock_ro SET default_transaction_read_only = off;
GRANT INSERT, UPDATE, DELETE ON public.orders TO airlock_ro;
GRANT pg_read_server_files TO airlock_ro;
-- down
REVOKE INSERT, UPDATE, DELETE ON public.orders FROM airlock_ro;
REVOKE pg_read_server_files FROM airlock_ro;
ALTER ROLE airlock_ro SET default_transaction_read_only = on;
