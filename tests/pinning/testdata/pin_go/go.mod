module workgate/pin_go

go 1.19
