package record

// The encoder's parts, for its tests beside encoding/json.
var (
	AppendRecord = appendRecord
	AppendFrame  = appendFrame
	MarshalLine  = marshalLine
)
