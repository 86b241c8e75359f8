package record

// The encoder's parts, for its tests beside encoding/json.
var (
	AppendRecord = appendRecord
	AppendMicros = appendMicros
	AppendFrame  = appendFrame
	MarshalLine  = marshalLine
)
