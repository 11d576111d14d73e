-- The demo database "shop" on MariaDB: the same four tables and the same
-- rows as integration/shop.sql (Postgres), so the MySQL tests can assert
-- exact values. Run as root with shop as the current database; it drops and
-- recreates the tables. Rows come from the built-in SEQUENCE engine
-- (seq_1_to_N), so the load is one INSERT ... SELECT per table.
--
-- Row i of each table is a pure function of i:
--   orders:         customer_id = (i*7919) % 1000 + 1, amount = ((i*37) % 100000) / 100,
--                   note = 'order i' (NULL when i % 10 = 0),
--                   created_at = 2024-01-01 00:00:00 + i minutes (DATETIME, UTC)
--   customers:      name = 'customer i', email = 'customer<i>@example.com' (NULL when i % 50 = 0)
--   products:       name = 'product i', price = ((i*113) % 10000) / 100 + 1
--   staff_salaries: name = 'staff i', salary = 50000 + 1000*i
--
-- Types: integer -> INT, bigserial -> BIGINT AUTO_INCREMENT, numeric(10,2)
-- -> DECIMAL(10,2), text -> VARCHAR, timestamptz -> DATETIME (the values
-- are the UTC wall-clock times, independent of the session time zone).

SET SESSION sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION';
SET SESSION time_zone = '+00:00';
SET NAMES utf8mb4;

DROP TABLE IF EXISTS orders, customers, products, staff_salaries;

CREATE TABLE customers (
	id INT NOT NULL PRIMARY KEY,
	name VARCHAR(100) NOT NULL,
	email VARCHAR(255)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_general_ci;

CREATE TABLE products (
	id INT NOT NULL PRIMARY KEY,
	name VARCHAR(100) NOT NULL,
	price DECIMAL(10,2) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_general_ci;

CREATE TABLE orders (
	id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
	customer_id INT,
	amount DECIMAL(10,2),
	note VARCHAR(100),
	created_at DATETIME,
	KEY orders_customer_id (customer_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_general_ci
  COMMENT = 'airlock demo data v1';

CREATE TABLE staff_salaries (
	id INT NOT NULL PRIMARY KEY,
	name VARCHAR(100) NOT NULL,
	salary DECIMAL(10,2) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_general_ci;

START TRANSACTION;

INSERT INTO customers (id, name, email)
SELECT seq, CONCAT('customer ', seq),
       CASE WHEN seq % 50 = 0 THEN NULL ELSE CONCAT('customer', seq, '@example.com') END
FROM seq_1_to_1000;

INSERT INTO products (id, name, price)
SELECT seq, CONCAT('product ', seq), ((seq * 113) % 10000) / 100 + 1
FROM seq_1_to_200;

INSERT INTO orders (id, customer_id, amount, note, created_at)
SELECT seq, (seq * 7919) % 1000 + 1, ((seq * 37) % 100000) / 100,
       CASE WHEN seq % 10 = 0 THEN NULL ELSE CONCAT('order ', seq) END,
       TIMESTAMP '2024-01-01 00:00:00' + INTERVAL seq MINUTE
FROM seq_1_to_200000;

INSERT INTO staff_salaries (id, name, salary)
SELECT seq, CONCAT('staff ', seq), 50000 + 1000 * seq
FROM seq_1_to_50;

COMMIT;

ALTER TABLE orders AUTO_INCREMENT = 200001;
ANALYZE TABLE customers, products, orders, staff_salaries;
