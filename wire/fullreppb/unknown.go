package fullreppb

// UnknownLen methods: the bytes of a message's unknown fields,
// len(m.ProtoReflect().GetUnknown()) without going through reflection
// (fullrep sizes and shares every message it sends by them, per
// message). A nil message has none. TestUnknownLenIsGetUnknown checks
// every message of the file has one, equal to GetUnknown's length.

// UnknownLen is len(x.ProtoReflect().GetUnknown()).
func (x *Dep) UnknownLen() int {
	if x == nil {
		return 0
	}
	return len(x.unknownFields)
}

// UnknownLen is len(x.ProtoReflect().GetUnknown()).
func (x *GetRequest) UnknownLen() int {
	if x == nil {
		return 0
	}
	return len(x.unknownFields)
}

// UnknownLen is len(x.ProtoReflect().GetUnknown()).
func (x *GetReply) UnknownLen() int {
	if x == nil {
		return 0
	}
	return len(x.unknownFields)
}

// UnknownLen is len(x.ProtoReflect().GetUnknown()).
func (x *PutRequest) UnknownLen() int {
	if x == nil {
		return 0
	}
	return len(x.unknownFields)
}

// UnknownLen is len(x.ProtoReflect().GetUnknown()).
func (x *PutReply) UnknownLen() int {
	if x == nil {
		return 0
	}
	return len(x.unknownFields)
}

// UnknownLen is len(x.ProtoReflect().GetUnknown()).
func (x *Replicate) UnknownLen() int {
	if x == nil {
		return 0
	}
	return len(x.unknownFields)
}

// UnknownLen is len(x.ProtoReflect().GetUnknown()).
func (x *ReplicateAck) UnknownLen() int {
	if x == nil {
		return 0
	}
	return len(x.unknownFields)
}

// UnknownLen is len(x.ProtoReflect().GetUnknown()).
func (x *DepCheck) UnknownLen() int {
	if x == nil {
		return 0
	}
	return len(x.unknownFields)
}

// UnknownLen is len(x.ProtoReflect().GetUnknown()).
func (x *DepOK) UnknownLen() int {
	if x == nil {
		return 0
	}
	return len(x.unknownFields)
}
