module task

go 1.22
