#!/usr/bin/perl
# dbd_pg_check.pl: DBI's catalog methods and a bound read through DBD::Pg,
# printed as JSON so a test can compare airlock with a direct connection.
#   perl dbd_pg_check.pl HOST PORT DBNAME USER PASSWORD
# Output: one JSON object, each key a call: its rows (arrays of the
# columns DBI names for it), or {"error": message}.
use strict;
use warnings;
use DBI;
use JSON::PP;

my ($host, $port, $db, $user, $password) = @ARGV;
my $dbh = DBI->connect("dbi:Pg:dbname=$db;host=$host;port=$port", $user, $password,
		       {RaiseError => 1, PrintError => 0, AutoCommit => 1})
  or die $DBI::errstr;
my %out;

sub rows {
	my ($name, $sth, @cols) = @_;
	my @got;

	while (my $r = $sth->fetchrow_hashref) {
		push @got, [map { $r->{$_} } @cols];
	}
	$out{$name} = [sort { join("\0", map { $_ // '' } @$a) cmp join("\0", map { $_ // '' } @$b) } @got];
}

sub try {
	my ($name, $code) = @_;
	eval { $code->(); 1 } or $out{$name} = {error => "$@"};
}

try('table_info', sub {
	rows('table_info', $dbh->table_info(undef, 'public', '%', 'TABLE'), qw(TABLE_SCHEM TABLE_NAME TABLE_TYPE REMARKS));
});
try('column_info', sub {
	rows('column_info', $dbh->column_info(undef, 'public', 'orders', '%'),
	     qw(COLUMN_NAME TYPE_NAME COLUMN_SIZE NULLABLE ORDINAL_POSITION));
});
try('primary_key', sub {
	$out{primary_key} = [$dbh->primary_key(undef, 'public', 'orders')];
});
try('bound_read', sub {
	$out{bound_read} = $dbh->selectall_arrayref('SELECT id, customer_id FROM orders WHERE id <= ? ORDER BY id',
						    undef, 3);
});
$dbh->disconnect;
print JSON::PP->new->canonical->encode(\%out), "\n";
