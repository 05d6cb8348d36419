package verify

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The Kafka protocol as the tap reads it: size-prefixed frames, a request
// header (api key, version, correlation id, client id), produce requests
// with their record batches, and produce responses.

// SentRecord is one record of a produce request.
type SentRecord struct {
	Partition int32
	Key       string
	// EventID is the value of the contract's id header; HasID is false
	// when the record has no such header.
	EventID string
	HasID   bool
	Value   []byte
}

// partResult is the broker's answer for one partition of a produce.
type partResult struct {
	Code       int16
	BaseOffset int64
}

// readFrame reads one size-prefixed frame, size included.
func readFrame(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > 64<<20 {
		return nil, fmt.Errorf("verify: a frame of %d bytes", n)
	}
	frame := make([]byte, 4+n)
	copy(frame, size[:])
	_, err := io.ReadFull(r, frame[4:])
	return frame, err
}

// requestHeader parses the header of a request frame and returns the
// request's body.
func requestHeader(frame []byte) (key, version int16, corr int32, body []byte, err error) {
	r := kbin.Reader{Src: frame[4:]}
	key, version, corr = r.Int16(), r.Int16(), r.Int32()
	r.NullableString() // client id: what the client says of itself, not used
	req := kmsg.RequestForKey(key)
	if req == nil {
		return key, version, corr, nil, r.Complete()
	}
	req.SetVersion(version)
	if req.IsFlexible() {
		kmsg.SkipTags(&r)
	}
	return key, version, corr, r.Src, r.Complete()
}

// decodeProduce returns a produce request's acks and its records, with
// the value of the header named idHeader.
func decodeProduce(version int16, body []byte, idHeader string) (int16, []SentRecord, error) {
	req := kmsg.NewPtrProduceRequest()
	req.Version = version
	if err := req.ReadFrom(body); err != nil {
		return 0, nil, fmt.Errorf("verify: produce v%d: %w", version, err)
	}
	var out []SentRecord
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			recs, err := batchRecords(p.Records)
			if err != nil {
				return 0, nil, fmt.Errorf("verify: produce to partition %d: %w", p.Partition, err)
			}
			for _, rec := range recs {
				s := SentRecord{Partition: p.Partition, Key: string(rec.Key), Value: rec.Value}
				for _, h := range rec.Headers {
					if h.Key == idHeader {
						s.EventID, s.HasID = string(h.Value), true
					}
				}
				out = append(out, s)
			}
		}
	}
	return req.Acks, out, nil
}

var decompressor = kgo.DefaultDecompressor()

// batchRecords reads the records of a v2 record batch (magic 2: every
// client of this decade), decompressing them first.
func batchRecords(raw []byte) ([]kmsg.Record, error) {
	var out []kmsg.Record
	for len(raw) > 0 {
		var b kmsg.RecordBatch
		if err := b.ReadFrom(raw); err != nil {
			return nil, err
		}
		if b.Magic != 2 {
			return nil, fmt.Errorf("record batch magic %d, want 2", b.Magic)
		}
		data := b.Records
		if codec := kgo.CompressionCodecType(b.Attributes & 0x07); codec != kgo.CodecNone {
			var err error
			if data, err = decompressor.Decompress(data, codec); err != nil {
				return nil, err
			}
		}
		for i := int32(0); i < b.NumRecords; i++ {
			length, n := binary.Varint(data)
			if n <= 0 || int(length) > len(data)-n {
				return nil, errors.New("a record's length runs past its batch")
			}
			var rec kmsg.Record
			if err := rec.ReadFrom(data[:n+int(length)]); err != nil {
				return nil, err
			}
			out = append(out, rec)
			data = data[n+int(length):]
		}
		raw = raw[12+int(b.Length):] // base offset (8) and length (4) precede Length bytes
	}
	return out, nil
}

// responseCorr returns the correlation id of a response frame.
func responseCorr(frame []byte) int32 {
	return int32(binary.BigEndian.Uint32(frame[4:8]))
}

// decodeProduceResponse returns the answer for each partition of a
// produce response frame.
func decodeProduceResponse(version int16, frame []byte) (map[int32]partResult, error) {
	r := kbin.Reader{Src: frame[8:]}
	resp := kmsg.NewPtrProduceResponse()
	resp.Version = version
	if resp.IsFlexible() {
		kmsg.SkipTags(&r)
	}
	if err := resp.ReadFrom(r.Src); err != nil {
		return nil, fmt.Errorf("verify: produce response v%d: %w", version, err)
	}
	out := map[int32]partResult{}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			out[p.Partition] = partResult{Code: p.ErrorCode, BaseOffset: p.BaseOffset}
		}
	}
	return out, nil
}

// codeName is the Kafka name of an error code.
func codeName(code int16) string {
	if code == 0 {
		return "OK"
	}
	return kerr.TypedErrorForCode(code).Message
}
