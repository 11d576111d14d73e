-- Ablation: the demo's MariaDB account airlock_ro may write orders and
-- read the mysql database.
-- up
GRANT INSERT, DELETE ON shop.orders TO 'airlock_ro'@'127.0.0.1', 'airlock_ro'@'localhost';
GRANT SELECT ON mysql.user TO 'airlock_ro'@'127.0.0.1', 'airlock_ro'@'localhost';
-- down
REVOKE INSERT, DELETE ON shop.orders FROM 'airlock_ro'@'127.0.0.1', 'airlock_ro'@'localhost';
REVOKE SELECT ON mysql.user FROM 'airlock_ro'@'127.0.0.1', 'airlock_ro'@'localhost';
