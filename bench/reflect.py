"""bench/reflect.py: what an ORM does on connect, timed: SQLAlchemy (psycopg2)
reflects the given tables and samples 3 rows of each, as LangChain's
SQLDatabase does. Prints the wall time in ms of RUNS runs, one per line.

    python3 bench/reflect.py URL RUNS TABLE...
"""

import sys
import time

import sqlalchemy as sa


def main():
    url, runs, tables = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    for _ in range(runs):
        t0 = time.monotonic()
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        meta = sa.MetaData()
        meta.reflect(bind=engine, only=tables)
        with engine.connect() as conn:
            for t in tables:
                conn.execute(sa.select(meta.tables[t]).limit(3)).fetchall()
        engine.dispose()
        print("%.1f" % ((time.monotonic() - t0) * 1000))


if __name__ == "__main__":
    main()
