module github.com/driplab/drip/integration

go 1.26.8

replace github.com/driplab/drip => ../
