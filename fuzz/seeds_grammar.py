"""seeds_grammar: hand-written seeds for the validator targets, one or more
for every construct of each grammar that can hold a relation reference
(FROM items, joins, TABLESAMPLE, LATERAL, ROWS FROM, XMLTABLE, set
operations, CTEs, cursors, COPY, subqueries in every clause, the catalogs,
the filtered and masked tables), and a few large inputs (long operator
chains, long IN lists, deep brackets) so the fuzzers start from the sizes
a client may send. The tables are the demo's (integration/tools/shop.sql):
orders, customers and products, and staff_salaries, which no user may
read. fuzz/seeds.py writes them; they need no running database."""

# Postgres 15 (libpg_query's grammar): no JSON_TABLE, so the JSON functions that return rows stand in.
PG = [
    # TABLESAMPLE, over plain, filtered, masked and catalog relations
    "SELECT * FROM orders TABLESAMPLE BERNOULLI (10)",
    "SELECT id, email FROM public.customers TABLESAMPLE SYSTEM (50) REPEATABLE (42)",
    "SELECT * FROM products TABLESAMPLE SYSTEM (1) REPEATABLE (0.5) WHERE price > 10",
    "SELECT * FROM ONLY orders TABLESAMPLE SYSTEM (10)",
    "SELECT * FROM orders o TABLESAMPLE BERNOULLI (50) JOIN customers c TABLESAMPLE SYSTEM (50) ON c.id = o.customer_id",
    "SELECT * FROM (SELECT * FROM orders TABLESAMPLE BERNOULLI (10)) s",
    "WITH s AS (SELECT * FROM customers TABLESAMPLE SYSTEM (10) REPEATABLE (3)) SELECT count(*) FROM s",
    "SELECT * FROM orders TABLESAMPLE bernoulli (10 + 0) REPEATABLE ((SELECT 1))",
    "SELECT * FROM products TABLESAMPLE SYSTEM ((SELECT count(*) FROM orders)::float4)",
    "SELECT relname FROM pg_catalog.pg_class c TABLESAMPLE SYSTEM (10) REPEATABLE (1) JOIN pg_namespace n ON n.oid = c.relnamespace",
    "SELECT * FROM pg_class TABLESAMPLE BERNOULLI (5)",
    "SELECT * FROM pg_attribute TABLESAMPLE SYSTEM (5)",
    "SELECT * FROM pg_statistic TABLESAMPLE SYSTEM (1)",
    "SELECT * FROM information_schema.tables TABLESAMPLE BERNOULLI (10)",
    "SELECT * FROM staff_salaries TABLESAMPLE BERNOULLI (100)",
    "SELECT * FROM customers c, LATERAL (SELECT * FROM orders TABLESAMPLE SYSTEM (5) WHERE customer_id = c.id) o",
    "DECLARE c CURSOR FOR SELECT * FROM orders TABLESAMPLE BERNOULLI (1)",
    "COPY (SELECT * FROM customers TABLESAMPLE SYSTEM (10)) TO STDOUT",
    "SELECT * FROM orders TABLESAMPLE BERNOULLI (10) UNION ALL SELECT * FROM orders TABLESAMPLE SYSTEM (10)",
    "SELECT * FROM orders TABLESAMPLE foo (1)",
    # LATERAL subqueries and functions
    "SELECT c.id, x.n FROM customers c, LATERAL (SELECT count(*) AS n FROM orders o WHERE o.customer_id = c.id) x",
    "SELECT c.id, o.amount FROM customers c CROSS JOIN LATERAL (SELECT amount FROM orders WHERE customer_id = c.id ORDER BY amount DESC LIMIT 1) o",
    "SELECT c.id, o.* FROM customers c LEFT JOIN LATERAL (SELECT * FROM orders WHERE customer_id = c.id LIMIT 2) o ON true",
    "SELECT * FROM customers c, LATERAL generate_series(1, c.id % 3) g",
    "SELECT * FROM orders o, LATERAL unnest(ARRAY[o.id, o.customer_id]) AS u(v)",
    "SELECT * FROM pg_class c, LATERAL (SELECT * FROM pg_attribute a WHERE a.attrelid = c.oid) a",
    "SELECT * FROM customers c JOIN LATERAL (SELECT * FROM pg_stats s WHERE s.tablename = 'customers') s ON true",
    "SELECT * FROM products p, LATERAL (SELECT * FROM staff_salaries) s",
    "SELECT * FROM orders o, LATERAL (SELECT * FROM customers c, LATERAL (SELECT p.name FROM products p WHERE p.id = c.id) p WHERE c.id = o.customer_id) x",
    "SELECT * FROM information_schema.tables t, LATERAL (SELECT * FROM information_schema.columns c WHERE c.table_name = t.table_name) c",
    # ROWS FROM and functions in FROM
    "SELECT * FROM ROWS FROM (generate_series(1, 3), unnest(ARRAY['a', 'b'])) AS t(a, b)",
    "SELECT * FROM ROWS FROM (generate_series(1, 3)) WITH ORDINALITY AS t(n, ord)",
    "SELECT * FROM customers c, LATERAL ROWS FROM (generate_series(1, c.id % 4), json_array_elements('[1,2]'::json)) AS r(a, b)",
    "SELECT * FROM ROWS FROM (json_to_record('{\"a\":1}'::json) AS (a int), generate_series(1, 2)) r",
    "SELECT * FROM unnest(ARRAY[1, 2], ARRAY['x', 'y']) WITH ORDINALITY AS u(n, s, o)",
    "SELECT * FROM ROWS FROM (pg_get_keywords()) k LIMIT 3",
    "SELECT * FROM generate_series(1, (SELECT count(*) FROM orders)::int) g",
    "SELECT * FROM ROWS FROM (generate_series(1, (SELECT max(id) FROM customers))) WITH ORDINALITY g",
    # XMLTABLE
    "SELECT * FROM XMLTABLE('/rows/row' PASSING CAST('<rows><row id=\"1\"/></rows>' AS xml) COLUMNS id int PATH '@id')",
    "SELECT x.* FROM customers c, XMLTABLE('/r' PASSING xmlelement(name r, c.name) COLUMNS n text PATH '.', ord FOR ORDINALITY) x",
    "SELECT * FROM XMLTABLE(XMLNAMESPACES('http://x' AS x), '/x:a' PASSING (SELECT xmlagg(xmlelement(name a, name)) FROM products) COLUMNS v text PATH '.' DEFAULT 'none' NOT NULL) t",
    "SELECT * FROM XMLTABLE('/a' PASSING BY REF '<a>1</a>' COLUMNS v int PATH (SELECT '.' FROM orders LIMIT 1))",
    "SELECT * FROM orders o, XMLTABLE('/a' PASSING (SELECT xmlelement(name a, email) FROM customers WHERE id = o.customer_id) COLUMNS e text PATH '.') x",
    # rows from JSON (Postgres 15 has no JSON_TABLE)
    "SELECT * FROM json_to_recordset('[{\"a\":1,\"b\":\"x\"}]') AS t(a int, b text)",
    "SELECT * FROM jsonb_to_recordset((SELECT jsonb_agg(o) FROM orders o)) AS t(id int, amount numeric)",
    "SELECT * FROM jsonb_path_query((SELECT to_jsonb(c) FROM customers c LIMIT 1), '$.email')",
    "SELECT * FROM jsonb_each((SELECT to_jsonb(c) FROM customers c LIMIT 1))",
    "SELECT * FROM json_populate_recordset(NULL::orders, (SELECT json_agg(o) FROM orders o))",
    "SELECT * FROM jsonb_populate_record(NULL::staff_salaries, '{}')",
    "SELECT * FROM json_table('[]', '$' COLUMNS (a int PATH '$.a'))",
    # window functions and WINDOW clauses
    "SELECT id, amount, sum(amount) OVER (PARTITION BY customer_id ORDER BY created_at ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM orders",
    "SELECT id, rank() OVER w, lag(amount) OVER w FROM orders WINDOW w AS (PARTITION BY customer_id ORDER BY amount DESC)",
    "SELECT id, avg(amount) OVER (w RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING EXCLUDE CURRENT ROW) FROM orders WINDOW w AS (ORDER BY amount)",
    "SELECT count(*) FILTER (WHERE amount > 10) OVER (ORDER BY id GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES) FROM orders",
    "SELECT ntile(4) OVER (ORDER BY (SELECT max(id) FROM customers)) FROM products",
    "SELECT first_value(name) OVER (PARTITION BY email IS NULL ORDER BY id), nth_value(email, 2) OVER w2 FROM customers WINDOW w AS (ORDER BY id), w2 AS (w ROWS 2 PRECEDING)",
    "SELECT row_number() OVER (ORDER BY c.relname) FROM pg_class c",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY amount), mode() WITHIN GROUP (ORDER BY customer_id) FROM orders",
    "SELECT * FROM (SELECT id, row_number() OVER (PARTITION BY customer_id ORDER BY id) rn FROM orders) s WHERE rn = 1",
    "SELECT id FROM orders WINDOW w AS (PARTITION BY (SELECT 1 FROM customers LIMIT 1))",
    "SELECT sum(amount) OVER (PARTITION BY customer_id IN (SELECT id FROM customers) ORDER BY id) FROM orders",
    # set operations
    "SELECT id FROM orders UNION SELECT id FROM customers",
    "SELECT id FROM orders UNION ALL SELECT id FROM products ORDER BY 1 LIMIT 5",
    "SELECT customer_id FROM orders INTERSECT SELECT id FROM customers",
    "SELECT customer_id FROM orders INTERSECT ALL SELECT id FROM customers",
    "SELECT id FROM customers EXCEPT SELECT customer_id FROM orders",
    "SELECT id FROM customers EXCEPT ALL SELECT customer_id FROM orders",
    "(SELECT id FROM orders ORDER BY id LIMIT 1) UNION (SELECT id FROM customers ORDER BY id DESC LIMIT 1)",
    "SELECT relname::text FROM pg_class UNION SELECT table_name FROM information_schema.tables EXCEPT SELECT 'x'",
    "SELECT 1 UNION SELECT id FROM staff_salaries",
    "VALUES (1, 'a'), (2, 'b') UNION ALL SELECT id, email FROM customers",
    "TABLE orders UNION TABLE orders",
    "TABLE customers EXCEPT TABLE customers",
    "SELECT * FROM (SELECT id FROM orders INTERSECT SELECT id FROM customers) s UNION SELECT 1",
    "SELECT email FROM customers UNION DISTINCT SELECT note FROM orders INTERSECT SELECT name FROM products",
    "WITH t AS (SELECT id FROM orders UNION ALL SELECT id FROM customers) SELECT count(*) FROM t",
    # cursors
    "DECLARE c CURSOR FOR SELECT * FROM orders",
    "DECLARE c SCROLL CURSOR WITH HOLD FOR SELECT * FROM customers ORDER BY id",
    "DECLARE c NO SCROLL CURSOR WITHOUT HOLD FOR SELECT relname FROM pg_class",
    "DECLARE c BINARY CURSOR FOR SELECT * FROM information_schema.columns",
    "DECLARE c CURSOR FOR WITH x AS (SELECT * FROM orders) SELECT * FROM x",
    "DECLARE c CURSOR FOR VALUES (1)",
    "DECLARE c CURSOR FOR TABLE customers",
    "DECLARE c CURSOR FOR SELECT * FROM orders FOR UPDATE",
    "DECLARE c INSENSITIVE CURSOR FOR SELECT * FROM orders o JOIN customers c ON c.id = o.customer_id",
    "DECLARE c CURSOR FOR SELECT id FROM orders UNION SELECT id FROM customers",
    "DECLARE c CURSOR FOR SELECT * FROM staff_salaries",
    "DECLARE \"Odd name\" CURSOR WITH HOLD FOR SELECT email FROM customers WHERE id IN (SELECT customer_id FROM orders)",
    "FETCH 10 FROM c",
    "FETCH NEXT FROM c",
    "FETCH FORWARD ALL FROM c",
    "FETCH ALL IN c",
    "FETCH BACKWARD 2 FROM c",
    "FETCH ABSOLUTE 3 FROM c",
    "FETCH PRIOR FROM c",
    "FETCH c",
    "MOVE 5 IN c",
    "CLOSE c",
    "CLOSE ALL",
    # COPY ... TO STDOUT, of a query and of a table
    "COPY orders TO STDOUT",
    "COPY public.customers (id, email) TO STDOUT WITH (FORMAT csv, HEADER true)",
    "COPY customers TO STDOUT",
    "COPY products TO STDOUT (FORMAT binary)",
    "COPY (SELECT * FROM orders WHERE amount > 10) TO STDOUT",
    "COPY (SELECT c.*, o.amount FROM customers c JOIN orders o ON o.customer_id = c.id) TO STDOUT WITH (FORMAT csv, DELIMITER ';', QUOTE '\"', FORCE_QUOTE *)",
    "COPY (WITH t AS (SELECT * FROM customers) SELECT * FROM t) TO STDOUT CSV HEADER",
    "COPY (VALUES (1, 'a')) TO STDOUT",
    "COPY (TABLE orders) TO STDOUT",
    "COPY (SELECT * FROM pg_class) TO STDOUT",
    "COPY pg_class TO STDOUT",
    "COPY information_schema.tables TO STDOUT",
    "COPY staff_salaries TO STDOUT",
    "COPY orders TO '/tmp/orders.csv'",
    "COPY orders FROM STDIN",
    "COPY customers (email) TO STDOUT WITH (FORMAT text, NULL 'n/a', ENCODING 'UTF8')",
    "COPY (SELECT id FROM orders UNION SELECT id FROM customers) TO STDOUT",
    "COPY (SELECT * FROM customers c, LATERAL (SELECT * FROM orders WHERE customer_id = c.id) o) TO STDOUT",
    # CTEs: recursive, MATERIALIZED, nested, shadowing
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) SELECT * FROM t",
    "WITH o AS MATERIALIZED (SELECT * FROM orders) SELECT * FROM o",
    "WITH o AS NOT MATERIALIZED (SELECT * FROM orders) SELECT * FROM o JOIN customers c ON c.id = o.customer_id",
    "WITH RECURSIVE r AS (SELECT id, customer_id FROM orders WHERE id = 1 UNION SELECT o.id, o.customer_id FROM orders o JOIN r ON o.customer_id = r.id) SEARCH DEPTH FIRST BY id SET ord CYCLE id SET is_cycle USING path SELECT * FROM r",
    "WITH a AS (SELECT * FROM customers), b AS (SELECT * FROM a WHERE id < 10) SELECT * FROM b",
    "WITH orders AS (SELECT 1 AS id) SELECT * FROM orders",
    "WITH customers AS (SELECT * FROM public.customers) SELECT email FROM customers",
    "WITH pg_class AS (SELECT 1) SELECT * FROM pg_class",
    "WITH x AS (SELECT * FROM staff_salaries) SELECT 1",
    "WITH x AS (DELETE FROM orders RETURNING *) SELECT * FROM x",
    "WITH x AS (SELECT * FROM orders) SELECT * FROM (WITH y AS (SELECT * FROM x) SELECT * FROM y) z",
    "WITH RECURSIVE cat AS (SELECT oid, relname FROM pg_class WHERE relname = 'orders' UNION ALL SELECT c.oid, c.relname FROM pg_class c JOIN cat ON false) SELECT * FROM cat",
    "WITH t AS (SELECT * FROM orders TABLESAMPLE SYSTEM (5)) SELECT * FROM t, customers",
    "SELECT (WITH m AS (SELECT max(amount) a FROM orders) SELECT a FROM m)",
    "SELECT * FROM customers WHERE id IN (WITH RECURSIVE t(n) AS (VALUES (1) UNION SELECT n + 1 FROM t WHERE n < 5) SELECT n FROM t)",
    # JOIN forms
    "SELECT * FROM orders NATURAL JOIN customers",
    "SELECT * FROM orders o JOIN customers c USING (id)",
    "SELECT * FROM orders o FULL OUTER JOIN customers c ON c.id = o.customer_id",
    "SELECT * FROM orders CROSS JOIN products",
    "SELECT * FROM orders o LEFT JOIN customers c ON c.id = o.customer_id RIGHT JOIN products p ON p.id = o.id",
    "SELECT * FROM orders NATURAL FULL JOIN customers",
    "SELECT * FROM customers NATURAL LEFT JOIN orders NATURAL RIGHT JOIN products",
    "SELECT * FROM (orders o JOIN customers c ON c.id = o.customer_id) j",
    "SELECT j.id FROM orders o JOIN customers c USING (id) AS j WHERE j.id < 5",
    "SELECT * FROM (customers NATURAL LEFT JOIN orders) AS x(a, b)",
    "SELECT * FROM orders, customers, products WHERE orders.customer_id = customers.id AND products.id = orders.id",
    "SELECT * FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid",
    "SELECT * FROM orders o JOIN staff_salaries s ON s.id = o.id",
    "SELECT * FROM (orders JOIN customers ON true) JOIN (products CROSS JOIN pg_class) ON true",
    "SELECT * FROM orders o INNER JOIN customers c ON (c.id, c.id) = (o.customer_id, o.customer_id) LEFT OUTER JOIN pg_stats s ON s.tablename = 'orders'",
    "SELECT * FROM orders JOIN customers ON customers.id = (SELECT max(id) FROM customers) FULL JOIN products USING (id)",
    # subqueries in every clause
    "SELECT (SELECT max(amount) FROM orders) AS m, (SELECT email FROM customers LIMIT 1)",
    "SELECT * FROM orders WHERE customer_id IN (SELECT id FROM customers WHERE email LIKE '%@example.com')",
    "SELECT * FROM orders o WHERE EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id)",
    "SELECT * FROM orders o WHERE NOT EXISTS (SELECT FROM customers c WHERE c.id = o.customer_id)",
    "SELECT customer_id, count(*) FROM orders GROUP BY customer_id HAVING count(*) > (SELECT count(*) / 100 FROM customers)",
    "SELECT * FROM orders ORDER BY (SELECT name FROM customers WHERE id = customer_id)",
    "SELECT * FROM orders LIMIT (SELECT count(*) FROM products) OFFSET (SELECT min(id) FROM customers)",
    "SELECT id FROM orders GROUP BY id, (SELECT 1 FROM customers LIMIT 1)",
    "SELECT customer_id, sum(amount) FROM orders GROUP BY ROLLUP (customer_id, (SELECT 1)), CUBE (id), GROUPING SETS ((note), ())",
    "SELECT CASE WHEN EXISTS (SELECT 1 FROM customers) THEN (SELECT name FROM products LIMIT 1) ELSE 'x' END",
    "SELECT amount > ALL (SELECT price FROM products), amount = ANY (SELECT amount FROM orders) FROM orders",
    "SELECT ARRAY(SELECT id FROM customers ORDER BY id LIMIT 3)",
    "SELECT * FROM orders WHERE (customer_id, id) IN (SELECT id, id FROM customers)",
    "SELECT sum(amount) FILTER (WHERE customer_id IN (SELECT id FROM customers)) FROM orders",
    "SELECT DISTINCT ON ((SELECT 1 FROM customers LIMIT 1)) id FROM orders",
    "SELECT * FROM orders WHERE id = (SELECT id FROM staff_salaries LIMIT 1)",
    "SELECT * FROM products p WHERE p.price < (SELECT avg(o.amount) FROM orders o WHERE o.id IN (SELECT c.id FROM customers c WHERE c.id = p.id))",
    "VALUES ((SELECT count(*) FROM orders)), ((SELECT count(*) FROM customers))",
    "SELECT * FROM (VALUES (1), ((SELECT max(id) FROM orders))) v(x)",
    "SELECT * FROM orders ORDER BY id FETCH FIRST (SELECT 2) ROWS WITH TIES",
    "SELECT coalesce((SELECT email FROM customers WHERE id = 1), (SELECT note FROM orders WHERE id = 1))",
    "SELECT string_agg(email, ',' ORDER BY (SELECT 1)) FROM customers",
    "SELECT (SELECT c FROM customers c LIMIT 1)",
    "SELECT * FROM orders WHERE amount BETWEEN (SELECT min(price) FROM products) AND (SELECT max(price) FROM products)",
    "SELECT id FROM orders WHERE note IS DISTINCT FROM (SELECT email FROM customers WHERE id = orders.customer_id)",
    # whole-row and column-alias references to filtered and masked tables
    "SELECT c FROM customers c",
    "SELECT customers FROM customers",
    "SELECT row_to_json(c), to_jsonb(o) FROM customers c JOIN orders o ON o.customer_id = c.id",
    "SELECT c.* FROM customers AS c(a, b)",
    "SELECT (o).id, (o).amount FROM orders o",
    "SELECT orders.* FROM orders",
    "SELECT * FROM orders AS o(x, y, z)",
    "SELECT ctid, xmin, tableoid::regclass FROM orders",
    "SELECT email FROM customers WHERE id = 7",
    "SELECT * FROM customers",
    "SELECT id, email FROM public.customers c WHERE c.email LIKE 'a%'",
    "SELECT customer_id, sum(amount) FROM orders GROUP BY 1",
    "SELECT * FROM orders WHERE customer_id > 100",
    "SELECT * FROM ONLY orders",
    "SELECT * FROM orders*",
    "SELECT \"email\" FROM \"customers\"",
    "SELECT * FROM customers, customers c2 WHERE customers.id = c2.id",
    "SELECT * FROM products",
    "SELECT * FROM orders FOR UPDATE",
    "SELECT * FROM orders FOR SHARE SKIP LOCKED",
    "SELECT * FROM customers WHERE id = $1",
    "SELECT NULL::orders, NULL::public.customers[], NULL::staff_salaries, NULL::pg_class",
    "SELECT '(1,2)'::orders",
    "SELECT * INTO TEMP t FROM orders",
    # the catalogs
    "SELECT relname, relkind FROM pg_class WHERE relnamespace = 'public'::regnamespace",
    "SELECT attname, atttypid::regtype FROM pg_attribute WHERE attrelid = 'public.customers'::regclass AND attnum > 0",
    "SELECT * FROM pg_stats WHERE tablename = 'customers'",
    "SELECT attname, n_distinct, most_common_vals FROM pg_catalog.pg_stats WHERE schemaname = 'public'",
    "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public'",
    "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'orders'",
    "SELECT * FROM pg_catalog.pg_tables",
    "SELECT * FROM pg_views",
    "SELECT * FROM pg_indexes",
    "SELECT * FROM pg_constraint",
    "SELECT * FROM pg_namespace",
    "SELECT * FROM pg_proc",
    "SELECT * FROM pg_type",
    "SELECT * FROM pg_roles",
    "SELECT * FROM pg_authid",
    "SELECT * FROM pg_user",
    "SELECT * FROM pg_shadow",
    "SELECT * FROM pg_stat_activity",
    "SELECT query FROM pg_stat_activity, orders",
    "SELECT * FROM pg_settings",
    "SELECT * FROM pg_stat_user_tables",
    "SELECT * FROM pg_statistic",
    "SELECT * FROM pg_description",
    "SELECT * FROM pg_inherits",
    "SELECT * FROM pg_depend",
    "SELECT * FROM pg_database",
    "SELECT * FROM pg_locks",
    "SELECT * FROM pg_stat_statements",
    "SELECT * FROM pg_attrdef",
    "SELECT * FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid",
    "SELECT * FROM information_schema.table_privileges",
    "SELECT * FROM information_schema.views",
    "SELECT * FROM information_schema.key_column_usage",
    "SELECT * FROM information_schema.schemata",
    "SELECT * FROM information_schema.routines",
    "SELECT * FROM information_schema.table_constraints",
    "SELECT * FROM information_schema.column_privileges",
    "SELECT * FROM ONLY pg_class",
    "SELECT * FROM \"pg_catalog\".\"pg_class\"",
    "SELECT * FROM pg_class* c",
    "SELECT * FROM pg_class c WHERE c.relname = ANY (SELECT tablename FROM pg_tables)",
    "SELECT * FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON a.attrelid = c.oid WHERE c.relname = 'staff_salaries'",
    "SELECT count(*) FROM pg_stats s JOIN information_schema.columns c ON c.column_name = s.attname",
    "SELECT pg_get_viewdef('pg_tables'::regclass), pg_table_size('customers'), obj_description('orders'::regclass)",
    "SELECT pg_relation_filenode('staff_salaries'), has_table_privilege('staff_salaries', 'select'), to_regclass('staff_salaries')",
    "SELECT 'staff_salaries'::regclass::oid, 'public.orders'::regclass, 'orders'::regtype, 'int4'::regtype",
    "SELECT pg_get_indexdef(indexrelid), pg_get_constraintdef(c.oid) FROM pg_index, pg_constraint c",
    "SELECT format_type(atttypid, atttypmod), col_description(attrelid, attnum) FROM pg_attribute WHERE attrelid = 'orders'::regclass",
    "SELECT current_user, session_user, current_role, user, current_query()",
    "SELECT * FROM orders WHERE note = current_user",
    "EXPLAIN SELECT * FROM orders",
    "EXPLAIN (FORMAT JSON, VERBOSE) SELECT * FROM customers",
    "EXPLAIN (COSTS OFF) SELECT * FROM pg_class JOIN orders ON true",
    "EXPLAIN ANALYZE SELECT 1",
    "EXPLAIN SELECT * FROM orders TABLESAMPLE SYSTEM (1)",
    "SELECT n.nspname, c.relname, a.attname FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid LEFT JOIN LATERAL (SELECT attname FROM pg_catalog.pg_attribute WHERE attrelid = c.oid AND attnum > 0) a ON true WHERE n.nspname = 'public'",
    # multiple statements, session statements around reads
    "SELECT * FROM orders; SELECT * FROM customers",
    "BEGIN READ ONLY",
    "SET search_path = app, public",
    "SHOW search_path",
    # Writes (support may write orders and customers, held for approval).
    "INSERT INTO orders (customer_id, amount) VALUES ($1, $2) RETURNING id",
    "INSERT INTO orders (customer_id, amount) SELECT id, 1 FROM customers WHERE id < 3",
    "UPDATE orders o SET note = c.name FROM customers c WHERE c.id = o.customer_id RETURNING o.id",
    "UPDATE customers SET name = upper(name) WHERE id = 7 RETURNING id, name",
    "DELETE FROM orders WHERE customer_id IN (SELECT id FROM customers WHERE name = 'x')",
    "DELETE FROM public.orders USING customers c WHERE c.id = orders.customer_id RETURNING *",
    "INSERT INTO customers VALUES (1, 'x')",
    "UPDATE customers SET email = 'x' RETURNING customers",
    "INSERT INTO orders (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET amount = excluded.amount",
]

MY = [
    # derived tables
    "SELECT * FROM (SELECT id, amount FROM orders) AS t",
    "SELECT t.email FROM (SELECT * FROM customers) t WHERE t.id < 10",
    "SELECT * FROM (SELECT * FROM (SELECT * FROM orders) a) b",
    "SELECT * FROM (SELECT customer_id, SUM(amount) s FROM orders GROUP BY customer_id) t JOIN customers c ON c.id = t.customer_id",
    "SELECT * FROM (SELECT * FROM staff_salaries) s",
    "SELECT * FROM (SELECT 1 AS a UNION SELECT 2) t (x)",
    "SELECT * FROM (VALUES (1, 2), (3, 4)) AS v",
    "SELECT * FROM ((SELECT id FROM orders) UNION (SELECT id FROM customers)) u",
    "SELECT * FROM (SELECT * FROM information_schema.TABLES) t",
    # LATERAL (MariaDB rejects it; the validator follows MySQL's form)
    "SELECT * FROM customers c, LATERAL (SELECT * FROM orders o WHERE o.customer_id = c.id) x",
    "SELECT * FROM customers c JOIN LATERAL (SELECT COUNT(*) n FROM orders WHERE customer_id = c.id) x ON TRUE",
    # JSON_TABLE (MariaDB 10.6)
    "SELECT * FROM JSON_TABLE('[{\"a\":1}]', '$[*]' COLUMNS (a INT PATH '$.a')) AS jt",
    "SELECT * FROM customers c, JSON_TABLE(CONCAT('[', c.id, ']'), '$[*]' COLUMNS (v INT PATH '$')) AS jt",
    # set operations
    "SELECT id FROM orders UNION SELECT id FROM customers",
    "SELECT id FROM orders UNION ALL SELECT id FROM products ORDER BY 1 LIMIT 5",
    "SELECT id FROM orders UNION DISTINCT SELECT id FROM customers",
    "SELECT customer_id FROM orders INTERSECT SELECT id FROM customers",
    "SELECT customer_id FROM orders INTERSECT ALL SELECT id FROM customers",
    "SELECT id FROM customers EXCEPT SELECT customer_id FROM orders",
    "SELECT id FROM customers EXCEPT ALL SELECT customer_id FROM orders",
    "SELECT id FROM customers MINUS SELECT customer_id FROM orders",
    "(SELECT id FROM orders ORDER BY id LIMIT 1) UNION (SELECT id FROM customers ORDER BY id DESC LIMIT 1)",
    "SELECT 1 UNION SELECT id FROM staff_salaries",
    "SELECT email FROM customers UNION SELECT TABLE_NAME FROM information_schema.TABLES",
    # JOIN forms
    "SELECT * FROM orders NATURAL JOIN customers",
    "SELECT * FROM orders o JOIN customers c USING (id)",
    "SELECT * FROM orders o LEFT JOIN customers c ON c.id = o.customer_id",
    "SELECT * FROM orders o RIGHT OUTER JOIN customers c ON c.id = o.customer_id",
    "SELECT * FROM orders CROSS JOIN products",
    "SELECT * FROM orders o STRAIGHT_JOIN customers c ON c.id = o.customer_id",
    "SELECT * FROM orders o NATURAL LEFT OUTER JOIN customers",
    "SELECT * FROM orders, customers, products WHERE orders.customer_id = customers.id",
    "SELECT * FROM (orders o, customers c) JOIN products p ON p.id = o.id",
    "SELECT * FROM orders o JOIN (customers c JOIN products p ON p.id = c.id) ON c.id = o.customer_id",
    "SELECT * FROM orders o INNER JOIN staff_salaries s ON s.id = o.id",
    "SELECT * FROM products USE INDEX (PRIMARY) WHERE id = 3",
    "SELECT * FROM products p FORCE INDEX FOR JOIN (PRIMARY) JOIN products q IGNORE INDEX (PRIMARY) ON q.id = p.id",
    "SELECT * FROM products PARTITION (p0)",
    "SELECT * FROM shop.orders o JOIN `shop`.`customers` AS c ON c.id = o.customer_id",
    "SELECT * FROM SHOP.ORDERS",
    "SELECT * FROM orders JOIN customers",
    "SELECT * FROM DUAL",
    # window functions
    "SELECT id, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY id) FROM orders",
    "SELECT id, RANK() OVER w, LAG(amount) OVER w FROM orders WINDOW w AS (PARTITION BY customer_id ORDER BY amount DESC)",
    "SELECT id, SUM(amount) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM orders",
    "SELECT NTILE(4) OVER (ORDER BY (SELECT MAX(id) FROM customers)) FROM products",
    # CTEs
    "WITH RECURSIVE t (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) SELECT * FROM t",
    "WITH o AS (SELECT * FROM orders) SELECT * FROM o JOIN customers c ON c.id = o.customer_id",
    "WITH a AS (SELECT * FROM customers), b AS (SELECT * FROM a WHERE id < 10) SELECT * FROM b",
    "WITH orders AS (SELECT 1 AS id) SELECT * FROM orders",
    "WITH customers AS (SELECT * FROM shop.customers) SELECT email FROM customers",
    "WITH TABLES AS (SELECT 1) SELECT * FROM TABLES",
    "WITH x AS (SELECT * FROM staff_salaries) SELECT 1",
    "WITH x AS (SELECT * FROM orders) SELECT * FROM (WITH y AS (SELECT * FROM x) SELECT * FROM y) z",
    # subqueries in every clause
    "SELECT (SELECT MAX(amount) FROM orders) AS m, (SELECT email FROM customers LIMIT 1)",
    "SELECT * FROM orders WHERE customer_id IN (SELECT id FROM customers WHERE email LIKE '%@example.com')",
    "SELECT * FROM orders o WHERE EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id)",
    "SELECT customer_id, COUNT(*) FROM orders GROUP BY customer_id HAVING COUNT(*) > (SELECT COUNT(*) / 100 FROM customers)",
    "SELECT * FROM orders ORDER BY (SELECT name FROM customers WHERE id = customer_id)",
    "SELECT customer_id, SUM(amount) FROM orders GROUP BY customer_id WITH ROLLUP",
    "SELECT amount > ALL (SELECT price FROM products), amount = ANY (SELECT amount FROM orders) FROM orders",
    "SELECT * FROM orders WHERE (customer_id, id) IN (SELECT id, id FROM customers)",
    "SELECT CASE WHEN EXISTS (SELECT 1 FROM customers) THEN (SELECT name FROM products LIMIT 1) ELSE 'x' END",
    "SELECT * FROM orders WHERE id = (SELECT id FROM staff_salaries LIMIT 1)",
    "SELECT * FROM orders LIMIT 2, 3",
    "SELECT * FROM orders ORDER BY id LIMIT 2 OFFSET 1",
    "SELECT * FROM orders ORDER BY id FETCH FIRST 2 ROWS ONLY",
    "SELECT SQL_CALC_FOUND_ROWS HIGH_PRIORITY SQL_NO_CACHE DISTINCT customer_id FROM orders",
    "SELECT email, name FROM customers WHERE id = 7",
    "SELECT * FROM customers",
    "SELECT c.* FROM customers c",
    "SELECT `email` FROM `customers`",
    "SELECT customers.email FROM customers",
    "SELECT * FROM products",
    "SELECT * FROM orders FOR UPDATE",
    "SELECT * FROM orders LOCK IN SHARE MODE",
    "SELECT * FROM orders INTO OUTFILE '/tmp/x'",
    "SELECT id INTO @x FROM orders LIMIT 1",
    "SELECT * FROM orders WHERE id = ?",
    # information_schema
    "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'shop'",
    "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_NAME = 'customers'",
    "SELECT * FROM information_schema.STATISTICS",
    "SELECT * FROM information_schema.SCHEMATA",
    "SELECT * FROM information_schema.KEY_COLUMN_USAGE k JOIN information_schema.TABLE_CONSTRAINTS t USING (CONSTRAINT_NAME)",
    "SELECT * FROM information_schema.PROCESSLIST",
    "SELECT * FROM information_schema.VIEWS",
    "SELECT * FROM information_schema.ROUTINES",
    "SELECT * FROM information_schema.USER_PRIVILEGES",
    "SELECT * FROM information_schema.PARTITIONS",
    "SELECT * FROM information_schema.INNODB_TRX",
    "SELECT * FROM INFORMATION_SCHEMA.tables t, information_schema.columns c WHERE c.table_name = t.table_name",
    "SELECT * FROM information_schema.COLUMNS AS c WHERE c.TABLE_NAME IN (SELECT TABLE_NAME FROM information_schema.TABLES)",
    "SELECT * FROM performance_schema.threads",
    "SELECT * FROM mysql.user",
    "SELECT * FROM sys.processlist",
    "USE information_schema",
    # SHOW forms, DESCRIBE, EXPLAIN
    "SHOW DATABASES",
    "SHOW SCHEMAS LIKE 's%'",
    "SHOW TABLES",
    "SHOW FULL TABLES FROM shop LIKE 'o%'",
    "SHOW TABLES IN information_schema",
    "SHOW TABLE STATUS WHERE Name = 'orders'",
    "SHOW TABLE STATUS FROM shop LIKE 'cust%'",
    "SHOW DATABASES WHERE `Database` NOT IN (SELECT TABLE_NAME FROM information_schema.TABLES)",
    "SHOW COLUMNS FROM orders",
    "SHOW FULL COLUMNS FROM customers FROM shop",
    "SHOW INDEX FROM orders",
    "SHOW KEYS IN customers",
    "SHOW CREATE TABLE customers",
    "SHOW CREATE TABLE staff_salaries",
    "SHOW VARIABLES LIKE 'max%'",
    "SHOW WARNINGS",
    "SHOW ERRORS LIMIT 1",
    "SHOW CHARACTER SET",
    "SHOW COLLATION LIKE 'utf8%'",
    "SHOW ENGINES",
    "SHOW AIRLOCK POLICY",
    "SHOW GRANTS",
    "SHOW PROCESSLIST",
    "DESCRIBE orders",
    "DESC customers email",
    "EXPLAIN SELECT * FROM orders",
    "EXPLAIN FORMAT=JSON SELECT * FROM customers",
    "EXPLAIN EXTENDED SELECT * FROM products",
    "EXPLAIN orders",
    # executable comments, hints, comment forms
    "SELECT /*! 1 */",
    "SELECT /*!50000 id */ FROM orders",
    "/*M!100000 SELECT 1 */",
    "SELECT 1 /*!, (SELECT email FROM customers) */",
    "SELECT /*+ MAX_EXECUTION_TIME(1000) */ * FROM orders",
    "SELECT * FROM orders # a comment\nWHERE id = 1",
    "SELECT * FROM orders -- a comment\nWHERE id = 1",
    "SELECT * FROM orders /* a comment */ WHERE id = 1",
    # functions that read other tables or the server
    "SELECT SLEEP(1)",
    "SELECT BENCHMARK(10, MD5('x'))",
    "SELECT LOAD_FILE('/etc/passwd')",
    "SELECT DATABASE(), USER(), CURRENT_USER(), @@version, @@session.sql_mode",
    # several statements
    "SELECT * FROM orders; SELECT * FROM customers",
]

# Statements written with double quotes, for the ANSI_QUOTES flag byte.
MY_ANSI = [
    'SELECT "email" FROM "customers"',
    'SELECT * FROM "shop"."orders" AS "o" WHERE "o"."id" = 1',
    'SELECT * FROM "information_schema"."TABLES"',
]


def large_pg():
    """Inputs of the sizes a client may send: the nesting bound's two sides and flat statements. The
    flat ones that are scoped stay small: under the fuzzer's instrumentation the scope walk costs
    about 25 us a node, and CI replays every seed within its 20 s."""
    yield "SELECT 1" + "+1" * 100000  # 200 kB, one operator chain
    yield "SELECT 'a'" + " || 'a'" * 25000
    yield "SELECT 1" + "::int" * 20000
    yield "SELECT * FROM products WHERE id IN (" + ", ".join(str(i) for i in range(16000)) + ")"  # 100 kB
    yield "SELECT * FROM orders WHERE id IN (" + ", ".join(str(i) for i in range(2000)) + ")"
    yield "SELECT * FROM customers WHERE " + " OR ".join("id = %d" % i for i in range(1000))
    yield "VALUES " + ", ".join("(%d, 'x')" % i for i in range(2000))
    yield "SELECT " + "(" * 900 + "1" + ")" * 900
    yield "SELECT " + "(" * 5000 + "1" + ")" * 5000
    yield "SELECT " + "(SELECT " * 300 + "1" + ")" * 300
    yield "SELECT * FROM orders" + " JOIN customers ON true" * 2000
    yield " UNION ".join(["SELECT id FROM orders"] * 3000)
    yield "SELECT '" + "x" * 200000 + "'"
    yield "SELECT 1 -- " + "x" * 100000
    yield "SELECT " + ", ".join("(SELECT email FROM customers WHERE id = %d)" % i for i in range(200))


def large_my():
    yield "SELECT 1" + "+1" * 100000
    yield "SELECT * FROM orders WHERE id IN (" + ", ".join(str(i) for i in range(16000)) + ")"
    yield "SELECT * FROM customers WHERE " + " OR ".join("id = %d" % i for i in range(8000))
    yield "SELECT " + "(" * 100 + "1" + ")" * 100
    yield "SELECT " + "(" * 5000 + "1" + ")" * 5000
    yield "SELECT " + "(SELECT " * 100 + "1" + ")" * 100
    yield " UNION ".join(["SELECT id FROM orders"] * 3000)
    yield "SELECT * FROM orders" + " JOIN customers ON TRUE" * 2000
    yield "SELECT '" + "x" * 200000 + "'"
    yield "SELECT " + ", ".join("(SELECT email FROM customers WHERE id = %d)" % i for i in range(2000))


# forbid_select_star (validate_pg_star.h, validate_my_star.h): the third fuzz_validate_pg policy, and
# fuzz_validate_my's flag bit 7, refuse stars in the result's columns; these read them every way.
PG_STAR = [
    "SELECT * FROM orders",
    "TABLE customers",
    "SELECT o.*, c.name FROM orders o JOIN customers c ON c.id = o.customer_id",
    "SELECT id FROM orders UNION SELECT * FROM customers",
    "SELECT to_json(c), (SELECT o FROM orders o LIMIT 1) FROM customers c",
    "SELECT ARRAY(SELECT c.* FROM customers c)",
    "SELECT count(*), count(c.*) FROM customers c WHERE EXISTS (SELECT * FROM orders)",
    "WITH x AS (SELECT * FROM orders) SELECT id FROM x",
    "DECLARE c CURSOR FOR SELECT * FROM customers",
    "COPY customers TO STDOUT",
    "COPY (SELECT c FROM customers c) TO STDOUT",
]

MY_STAR = [
    "SELECT * FROM orders",
    "SELECT o.*, c.name FROM orders o JOIN customers c ON c.id = o.customer_id",
    "(SELECT * FROM orders) UNION SELECT id FROM customers",
    "SELECT COUNT(*), 2 * 3 FROM orders WHERE id IN (SELECT * FROM (SELECT id FROM customers) c)",
    "WITH x AS (SELECT * FROM orders) SELECT x.* FROM x",
]


def seeds():
    """(target, bytes) of every seed; fuzz_validate_my's first byte is its policy flags."""
    for s in PG:
        yield "fuzz_validate_pg", s.encode()
    for s in large_pg():
        yield "fuzz_validate_pg", s.encode()
    for s in PG_STAR:
        yield "fuzz_validate_pg", s.encode()
    for s in MY:
        yield "fuzz_validate_my", b"\x00" + s.encode()
    for s in MY_ANSI:
        yield "fuzz_validate_my", b"\x01" + s.encode()
    for s in MY_STAR:
        yield "fuzz_validate_my", b"\x80" + s.encode()
    for s in large_my():
        yield "fuzz_validate_my", b"\x00" + s.encode()
