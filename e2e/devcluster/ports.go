package main

import (
	"fmt"
	"net"
)

// ports are the TCP ports of one devcluster, all on 127.0.0.1.
type ports struct {
	apiserver         int
	etcdClient        int
	etcdPeer          int
	controllerManager int
	scheduler         int
	kwok              int
	metricsServer     int
}

// pickPorts picks free ports. All listeners are held open until every port is
// chosen, so the ports are distinct; apiserverPort, if not 0, is used as is.
func pickPorts(apiserverPort int) (ports, error) {
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	free := func() (int, error) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("picking a free port: %w", err)
		}
		listeners = append(listeners, l)
		return l.Addr().(*net.TCPAddr).Port, nil
	}

	var p ports
	var err error
	for _, field := range []*int{&p.etcdClient, &p.etcdPeer, &p.controllerManager, &p.scheduler, &p.kwok, &p.metricsServer} {
		if *field, err = free(); err != nil {
			return p, err
		}
	}
	p.apiserver = apiserverPort
	if p.apiserver == 0 {
		if p.apiserver, err = free(); err != nil {
			return p, err
		}
	}
	return p, nil
}
