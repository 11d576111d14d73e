-- The demo database "shop": four tables of deterministic data, so tests can
-- assert exact values. Run as a superuser inside database shop, in one
-- transaction; it drops and recreates the tables.
--
-- Row i of each table is a pure function of i:
--   orders:         customer_id = (i*7919) % 1000 + 1, amount = ((i*37) % 100000) / 100,
--                   note = 'order i' (NULL when i % 10 = 0),
--                   created_at = 2024-01-01 00:00:00+00 + i minutes
--   customers:      name = 'customer i', email = 'customer<i>@example.com' (NULL when i % 50 = 0)
--   products:       name = 'product i', price = ((i*113) % 10000) / 100 + 1
--   staff_salaries: name = 'staff i', salary = 50000 + 1000*i

\set ON_ERROR_STOP on
SET client_min_messages = warning;
BEGIN;

DROP TABLE IF EXISTS orders, customers, products, staff_salaries;

CREATE TABLE customers (
	id integer PRIMARY KEY,
	name text NOT NULL,
	email text
);

CREATE TABLE products (
	id integer PRIMARY KEY,
	name text NOT NULL,
	price numeric(10,2) NOT NULL
);

CREATE TABLE orders (
	id bigserial PRIMARY KEY,
	customer_id integer,
	amount numeric(10,2),
	note text,
	created_at timestamptz
);

CREATE TABLE staff_salaries (
	id integer PRIMARY KEY,
	name text NOT NULL,
	salary numeric(10,2) NOT NULL
);

INSERT INTO customers (id, name, email)
SELECT i, 'customer ' || i,
       CASE WHEN i % 50 = 0 THEN NULL ELSE 'customer' || i || '@example.com' END
FROM generate_series(1, 1000) AS i;

INSERT INTO products (id, name, price)
SELECT i, 'product ' || i, ((i * 113) % 10000) / 100.0 + 1
FROM generate_series(1, 200) AS i;

INSERT INTO orders (id, customer_id, amount, note, created_at)
SELECT i, (i * 7919) % 1000 + 1, ((i * 37) % 100000) / 100.0,
       CASE WHEN i % 10 = 0 THEN NULL ELSE 'order ' || i END,
       timestamptz '2024-01-01 00:00:00+00' + i * interval '1 minute'
FROM generate_series(1, 200000) AS i;
SELECT setval(pg_get_serial_sequence('orders', 'id'), 200000);

INSERT INTO staff_salaries (id, name, salary)
SELECT i, 'staff ' || i, 50000 + 1000 * i
FROM generate_series(1, 50) AS i;

CREATE INDEX orders_customer_id ON orders (customer_id);
COMMENT ON TABLE orders IS 'airlock demo data v1';
ANALYZE customers, products, orders, staff_salaries;

COMMIT;
