module github.com/driplab/drip/integration

go 1.26.8

replace github.com/driplab/drip => ../

require github.com/driplab/drip v0.0.0-00010101000000-000000000000

require (
	github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream v1.7.27 // indirect
	github.com/aws/smithy-go v1.28.9 // indirect
)
